import { describe, expect, it } from 'vitest';
import { parseRequestHead } from './edge-http1';

// What the edge's own reader takes, and what it leaves to node:http (undefined): it takes
// only requests that are plainly GET/HEAD without a body, so it never has to refuse one
// itself and cannot disagree with node:http about where a request ends.

const head = (...lines: string[]) => lines.join('\r\n');
const AUTH = 'Basic cGtfbGl2ZV9nb29kOg==';

describe('parseRequestHead', () => {
  it("takes apt's request: the headers the edge reads, whatever else comes with them", () => {
    const request = parseRequestHead(
      head(
        'GET /deb/acme/tools/debian/dists/bookworm/InRelease HTTP/1.1',
        'Host: apt.example.com',
        'Cache-Control: max-age=0',
        `Authorization: ${AUTH}`,
        'If-Modified-Since: Tue, 05 Mar 2024 10:05:00 GMT',
        'User-Agent: Debian APT-HTTP/1.3 (2.6.1)',
      ),
    );
    expect(request).toEqual({
      method: 'GET',
      url: '/deb/acme/tools/debian/dists/bookworm/InRelease',
      headers: { host: 'apt.example.com', authorization: AUTH, 'if-modified-since': 'Tue, 05 Mar 2024 10:05:00 GMT' },
      close: false,
    });
  });

  it('reads header names in any case, trims their values, and notes Connection: close', () => {
    const request = parseRequestHead(head('HEAD /rpm/a/b/el/9/repodata/repomd.xml HTTP/1.1', 'HOST:x', 'if-NONE-match:   "abc"  ', 'Range: bytes=0-9', 'If-Range: "abc"', 'Connection: Close'));
    expect(request).toMatchObject({ method: 'HEAD', headers: { host: 'x', 'if-none-match': '"abc"', range: 'bytes=0-9', 'if-range': '"abc"' }, close: true });
  });

  it.each([
    ['another method', head('POST /deb/a/b/x HTTP/1.1', 'Host: x')],
    ['HTTP/1.0', head('GET /deb/a/b/x HTTP/1.0', 'Host: x')],
    ['HTTP/2 preface', head('PRI * HTTP/2.0', '')],
    ['a body by length', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'Content-Length: 5')],
    ['a chunked body', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked')],
    ['Expect', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'Expect: 100-continue')],
    ['an upgrade', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'Connection: Upgrade', 'Upgrade: websocket')],
    ['no Host', head('GET /deb/a/b/x HTTP/1.1', `Authorization: ${AUTH}`)],
    ['two Hosts', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'Host: y')],
    ['two Authorizations', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', `Authorization: ${AUTH}`, 'Authorization: Basic b3RoZXI6')],
    ['an absolute URL', head('GET http://x/deb/a/b/x HTTP/1.1', 'Host: x')],
    ['a control character in the URL', head('GET /deb/a/b/x\x01 HTTP/1.1', 'Host: x')],
    ['two spaces in the request line', head('GET  /deb/a/b/x HTTP/1.1', 'Host: x')],
    ['a bare LF inside a header', head('GET /deb/a/b/x HTTP/1.1', 'Host: x\nContent-Length: 5')],
    ['a bare CR inside a header', head('GET /deb/a/b/x HTTP/1.1', 'Host: x\rX: y')],
    ['a folded header line', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', ' continued')],
    ['a space before the colon', head('GET /deb/a/b/x HTTP/1.1', 'Host : x')],
    ['a line without a colon', head('GET /deb/a/b/x HTTP/1.1', 'Host: x', 'garbage')],
    ['a request line alone', 'GET /deb/a/b/x HTTP/1.1'],
  ])('leaves %s to node:http', (_, text) => {
    expect(parseRequestHead(text)).toBeUndefined();
  });
});
