import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntilInstallable } from './edge-wait';
import { ClientError, EXIT } from './exit-codes';
import type { Package, Repository } from './api-client';

// An edge that publishes late: push --wait must keep polling the signed index chain until
// the package is listed in every index its distribution reaches, and give up with exit 5.

const repository = { id: 'r1', workspaceId: 'w1', name: 'tools', kind: 'DEB', codename: 'bookworm', component: 'main', packageCount: 0 } satisfies Repository;
const pkg = { id: 'p1', name: 'hello', version: '1.0', architecture: 'all', filename: 'hello_1.0_all.deb', sizeBytes: 1, downloads: 0, publishedAt: '', distribution: 'debian/bookworm' } satisfies Package;
const TOKEN = 'pk_read';
const stanza = (filename: string) => `Package: x\nFilename: pool/main/x/${filename}\n\n`;

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** serves dists/bookworm/{InRelease,main/binary-amd64/Packages.gz} (a large index: the plain one is listed, not served); `packages()` decides the index's content per request */
async function edge(packages: () => string): Promise<string> {
  server = createServer((request, response) => {
    if (request.headers.authorization !== `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}`) return void response.writeHead(401).end();
    if (request.url === '/deb/w/tools/debian/dists/bookworm/InRelease') {
      return void response.end(`Suite: bookworm\nSHA256:\n ${'a'.repeat(64)} 10 main/binary-amd64/Packages\n ${'b'.repeat(64)} 10 main/binary-amd64/Packages.gz\n`);
    }
    if (request.url === '/deb/w/tools/debian/dists/bookworm/main/binary-amd64/Packages.gz') return void response.end(gzipSync(packages()));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/deb/w/tools`;
}

describe('waitUntilInstallable', () => {
  it('returns only once the Packages index the InRelease lists names the file', async () => {
    let requests = 0;
    const repositoryUrl = await edge(() => (++requests < 3 ? stanza('other_1.0_all.deb') : stanza('hello_1.0_all.deb')));
    await waitUntilInstallable(pkg, { repositoryUrl, repository, token: TOKEN, timeoutMs: 5_000, pollMs: 10 });
    expect(requests).toBe(3);
  });

  it('gives up with exit 5 when the edge never lists it, naming what is missing', async () => {
    const repositoryUrl = await edge(() => stanza('hello_0.9_all.deb'));
    const waiting = waitUntilInstallable(pkg, { repositoryUrl, repository, token: TOKEN, timeoutMs: 200, pollMs: 10 });
    await expect(waiting).rejects.toThrow(/hello_1\.0_all\.deb is not served by .* \(missing in debian\/bookworm\)/);
    await expect(waiting).rejects.toMatchObject({ exitCode: EXIT.server });
  });

  it('stops at once with exit 2 when the edge refuses the token', async () => {
    const repositoryUrl = await edge(() => '');
    const error = await waitUntilInstallable(pkg, { repositoryUrl, repository, token: 'pk_wrong', timeoutMs: 5_000, pollMs: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ exitCode: EXIT.auth });
  });

  it('looks for a source package in the distribution\'s SRPMS/ repository', async () => {
    const rpmRepository = { ...repository, kind: 'RPM', codename: '', component: '' } satisfies Repository;
    const source = { ...pkg, architecture: 'src', filename: 'hello-1.0-1.src.rpm', distribution: 'el/9' } satisfies Package;
    server = createServer((request, response) => {
      if (request.url === '/rpm/w/tools/el/9/SRPMS/repodata/repomd.xml') return void response.end('<data type="primary">\n<location href="repodata/p-primary.xml"/>');
      if (request.url === '/rpm/w/tools/el/9/SRPMS/repodata/p-primary.xml') return void response.end('<location href="Packages/el/9/h/hello-1.0-1.src.rpm"/>');
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const repositoryUrl = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/rpm/w/tools`;
    await waitUntilInstallable(source, { repositoryUrl, repository: rpmRepository, token: TOKEN, timeoutMs: 2_000, pollMs: 10 });
  });
});
