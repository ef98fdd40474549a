import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, postWebhook, RESPONSE_EXCERPT_BYTES } from './webhook-request';
import { signatureHeader } from './webhook-signature';

// A real receiver on 127.0.0.1: what one attempt does with each kind of answer.

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '');
    if (request.url === '/redirect') return response.writeHead(302, { location: '/ok' }).end();
    if (request.url === '/slow') return void setTimeout(() => response.end('late'), 2_000);
    if (request.url === '/big') return response.writeHead(200).end('x'.repeat(RESPONSE_EXCERPT_BYTES * 50));
    response.writeHead(request.url === '/broken' ? 503 : 200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const post = (path: string, options: Partial<Parameters<typeof postWebhook>[2]> = {}) => postWebhook(`${base}${path}`, '{}', { timeoutMs: 5_000, allowPrivateAddresses: true, headers: {}, ...options });

describe('one webhook attempt', () => {
  it('a 2xx succeeds; another status fails with its code and the first bytes of the answer', async () => {
    expect(await post('/ok')).toMatchObject({ statusCode: 200, succeeded: true, error: '', responseExcerpt: 'ok' });
    expect(await post('/broken')).toMatchObject({ statusCode: 503, succeeded: false, error: 'HTTP 503', responseExcerpt: 'ok' });
  });

  it('does not follow a redirect', async () => {
    hits.length = 0;
    expect(await post('/redirect')).toMatchObject({ statusCode: 302, succeeded: false, error: 'HTTP 302 (redirects are not followed)' });
    expect(hits).toEqual(['/redirect']);
  });

  it('keeps only the first bytes of a large answer, and gives up on a slow one at the timeout', async () => {
    expect((await post('/big')).responseExcerpt).toHaveLength(RESPONSE_EXCERPT_BYTES);
    const slow = await post('/slow', { timeoutMs: 300 });
    expect(slow).toMatchObject({ statusCode: 0, succeeded: false, error: 'no answer within 0.3 s' });
    expect(slow.durationMs).toBeLessThan(1_500);
  });

  it('refuses loopback and private addresses unless allowed, by literal address and by name', async () => {
    hits.length = 0;
    expect((await post('/ok', { allowPrivateAddresses: false })).error).toMatch(/^127\.0\.0\.1 resolves to 127\.0\.0\.1, a private or loopback address/);
    const byName = await postWebhook(`${base.replace('127.0.0.1', 'localhost')}/ok`, '{}', { timeoutMs: 5_000, allowPrivateAddresses: false, headers: {} });
    expect(byName).toMatchObject({ statusCode: 0, succeeded: false });
    expect(byName.error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private or loopback address/);
    expect(hits).toEqual([]);
    for (const address of ['10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1::1', '172.32.0.1']) expect(isPrivateAddress(address), address).toBe(false);
  });

  it('a refused connection is a failure without a status', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await postWebhook(`http://127.0.0.1:${port}/`, '{}', { timeoutMs: 5_000, allowPrivateAddresses: true, headers: {} })).toMatchObject({ statusCode: 0, succeeded: false, error: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('the signature', () => {
  it('is HMAC-SHA256 over "<t>.<body>" with the secret, as the README documents', () => {
    const body = '{"id":"d-1"}';
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader('whsec_test', 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });
});
