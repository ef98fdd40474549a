import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadModelStore, edgeFirst, inboxStream, replyThrough, type ReadModelStore } from '@packyard/platform';
import { FsBlobStore } from '@packyard/platform/blobs/index';
import { runChecked } from '@packyard/testing/clients/run-command';
import { waitFor } from '@packyard/testing';
import { PublicationManifest, type IndexFile, type IndexPublished, type PublicationManifestRef } from '@packyard/proto/packyard/repository/v1/events';
import { TrafficAccounting } from '../accounting/traffic-accounting';
import { INVALID, VerdictCache, type TokenVerdict } from '../auth/token-verdicts';
import { deliveryProjection, type CatalogChange } from '../catalog/delivery.projection';
import { PublishedCatalog } from '../catalog/published-catalog';
import { PublicKeys } from '../keys/public-keys';
import { deliveryEdge } from './delivery-edge';
import { EdgeMetrics } from './edge-metrics';
import { PackageBodyCache } from './package-body-cache';

// The edge against a publication built in the test: a real blob store and read model, the
// projection fed with the events the pipeline emits, and fetch as the client; all of it
// through node:http, and again through the edge's own HTTP/1.1 reader as edge workers run it.

const TOKEN = 'pk_live_good';
const OTHER_REPO_TOKEN = 'pk_live_other';
const THIRD_REPO_TOKEN = 'pk_live_third';
const basic = (token: string) => `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each([{ transport: 'node:http', ownReader: false }, { transport: "the edge's own HTTP/1.1 reader", ownReader: true }])('delivery edge through $transport', ({ ownReader }) => {
  let dir: string;
  let blobs: FsBlobStore;
  let readModels: ReadModelStore;
  let catalog: PublishedCatalog;
  let accounting: TrafficAccounting;
  let server: Server;
  let base: string;
  let position = 0;
  const registry = new Registry();
  const validations: string[] = [];

  /** the projection handles the event; `refresh: false` leaves the catalogue untold, as an edge worker before its refresh message */
  const project = async (type: string, data: unknown, { refresh = true } = {}) => {
    position += 1;
    const changes: CatalogChange[] = [];
    await deliveryProjection((change) => void changes.push(change)).handle(
      { id: `e${position}`, stream: inboxStream('repository', `m${position}`), type, data, version: 1, position, recordedAt: new Date().toISOString() },
      readModels,
    );
    if (refresh) for (const change of changes) if (change.kind === 'repository') await catalog.refresh(change.repositoryId);
  };

  const put = async (path: string, bytes: Buffer, isPackage = false): Promise<IndexFile> => {
    const info = await blobs.putContentAddressed('test', Readable.from([bytes]));
    return { path, blobKey: info.key, size: info.size, sha256: info.sha256, contentType: '', package: isPackage };
  };

  /** the generation's manifest, stored as the publisher stores it */
  const manifest = async (files: IndexFile[], repositoryFiles: IndexFile[] = []): Promise<PublicationManifestRef> => {
    const info = await blobs.putContentAddressed('test', Readable.from([Buffer.from(PublicationManifest.encode({ files, repositoryFiles, parts: [] }).finish())]));
    return { blobKey: info.key, sha256: info.sha256, size: info.size };
  };

  const publication = async (generation: number, files: IndexFile[], retainedGenerations: number[], repositoryFiles: IndexFile[] = []): Promise<IndexPublished> => ({
    repositoryId: 'r1',
    targetDistribution: { distro: 'debian', version: 'bookworm' },
    generation,
    publishedAt: new Date(Date.UTC(2024, 2, 5, 10, generation)).toISOString(),
    kind: 'DEB',
    workspaceId: 'w1',
    workspaceSlug: 'acme',
    repositoryName: 'tools',
    manifest: await manifest(files, repositoryFiles),
    packageCount: files.filter((file) => file.package).length,
    inputsDigest: `inputs-${generation}`,
    retainedGenerations,
    ownerId: 'u1',
  });

  const inRelease = (generation: number) => Buffer.from(`-----BEGIN PGP SIGNED MESSAGE-----\nGeneration: ${generation}\n`);
  const packages = (generation: number) => Buffer.from(`Package: hello\nVersion: ${generation}\n`);
  const pool = randomBytes(300_000);
  // two blocks of the cache's 100 KB, within a quarter of its 1 MiB: kept by blocks once asked for twice
  const medium = randomBytes(200_000);
  // far more than the socket buffers and the read stream hold between them
  const large = randomBytes(64 * 1024 * 1024);
  /** the streams the edge opened on the blob store, newest last: how far each read ahead */
  const opened: { bytesRead: number }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-edge-'));
    blobs = new FsBlobStore(join(dir, 'blobs'));
    readModels = await createReadModelStore({ kind: 'sqlite', dataDir: dir, module: 'delivery' });
    catalog = new PublishedCatalog(readModels, blobs);
    accounting = new TrafficAccounting(async () => 'p1');
    const verdicts = new VerdictCache(
      async (token): Promise<TokenVerdict> => {
        validations.push(token);
        if (token === TOKEN) return { valid: true, kind: 'repo_token', tokenId: 't1', ownerId: 'u1', scopes: [], repositoryId: 'r1' };
        if (token === OTHER_REPO_TOKEN) return { valid: true, kind: 'repo_token', tokenId: 't2', ownerId: 'u1', scopes: [], repositoryId: 'r2' };
        if (token === THIRD_REPO_TOKEN) return { valid: true, kind: 'repo_token', tokenId: 't3', ownerId: 'u1', scopes: [], repositoryId: 'r3' };
        return INVALID;
      },
      { ttlMs: 4000, negativeTtlMs: 1000, maxEntries: 100 },
    );
    const publicKeys = new PublicKeys(async () => undefined, async () => ({ armored: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n', binary: Buffer.from([0x99, 1, 2]) }));
    // the 300 KB pool file is above the cache's file limit: it is streamed from the blob store
    const packageBodies = new PackageBodyCache((key, range) => blobs.get(key, range), 100_000, 1024 * 1024);
    const store = Object.assign(Object.create(blobs) as FsBlobStore, {
      get: async (...args: Parameters<FsBlobStore['get']>) => {
        const stream = await blobs.get(...args);
        opened.push(stream as unknown as { bytesRead: number });
        return stream;
      },
    });
    const edge = deliveryEdge({ catalog, verdicts, accounting, blobs: store, publicKeys, metrics: new EdgeMetrics(registry, catalog), packageBodies, logger: pino({ level: 'silent' }) });
    server = createServer((request, response) => (edge.matches(request.url!) ? edge.answer(request, replyThrough(response)) : response.writeHead(418).end()));
    if (ownReader) edgeFirst(server, { edge, idleMs: 60_000, headersMs: 60_000 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/deb/acme/tools/debian`;

    for (let generation = 1; generation <= 5; generation++) {
      const packagesFile = await put('dists/bookworm/main/binary-amd64/Packages', packages(generation));
      await project(
        'IndexPublished',
        await publication(
          generation,
          [
            await put('dists/bookworm/InRelease', inRelease(generation)),
            packagesFile,
            { ...packagesFile, path: `dists/bookworm/main/binary-amd64/by-hash/SHA256/${packagesFile.sha256}` },
            await put('pool/main/h/hello/hello_1.0_all.deb', pool, true),
            await put('pool/main/m/medium/medium_1.0_all.deb', medium, true),
            await put('pool/main/l/large/large_1.0_all.deb', large, true),
          ],
          [generation - 1, generation - 2, generation - 3].filter((g) => g > 0),
        ),
      );
    }
  });

  afterAll(async () => {
    server?.close();
    await readModels?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${base}/${path}`, { method, headers: { authorization: basic(TOKEN), ...headers } });

  it('answers 401 with a Basic challenge and no page for a missing, wrong or foreign token', async () => {
    for (const authorization of [undefined, basic('pk_wrong'), basic(OTHER_REPO_TOKEN), 'Bearer pk_live_good']) {
      const response = await fetch(`${base}/dists/bookworm/InRelease`, { headers: authorization ? { authorization } : {} });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Basic realm="Packyard"');
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toBe('Unauthorized\n');
    }
    // an unknown repository looks the same as a wrong token
    expect((await fetch(base.replace('tools', 'nothing') + '/dists/bookworm/InRelease')).status).toBe(401);
  });

  it('serves the newest InRelease with a strong ETag, RFC 1123 Last-Modified and short revalidating caching', async () => {
    const response = await get('dists/bookworm/InRelease');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(inRelease(5).toString());
    expect(response.headers.get('etag')).toBe(`"${sha256(inRelease(5))}"`);
    expect(response.headers.get('last-modified')).toBe('Tue, 05 Mar 2024 10:05:00 GMT');
    expect(response.headers.get('cache-control')).toBe('public, max-age=60, must-revalidate');
    expect(response.headers.get('vary')).toBe('Authorization');
  });

  it('answers 304 to If-None-Match and If-Modified-Since, 200 once the content changed', async () => {
    const etag = (await get('dists/bookworm/InRelease')).headers.get('etag')!;
    expect((await get('dists/bookworm/InRelease', { 'if-none-match': etag })).status).toBe(304);
    expect((await get('dists/bookworm/InRelease', { 'if-modified-since': 'Tue, 05 Mar 2024 10:05:00 GMT' })).status).toBe(304);
    expect((await get('dists/bookworm/InRelease', { 'if-none-match': `"${sha256(inRelease(4))}"` })).status).toBe(200);
  });

  it('keeps by-hash files of the 3 previous generations readable and forgets older ones, immutable', async () => {
    for (const generation of [2, 3, 4, 5]) {
      const response = await get(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${sha256(packages(generation))}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(packages(generation).toString());
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await get(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${sha256(packages(1))}`)).status).toBe(404);
  });

  it('streams pool files whole, by range and by HEAD, and refuses a range past the end', async () => {
    const whole = await get('pool/main/h/hello/hello_1.0_all.deb');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('application/vnd.debian.binary-package');
    expect(whole.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await whole.arrayBuffer()).equals(pool)).toBe(true);

    const part = await get('pool/main/h/hello/hello_1.0_all.deb', { range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${pool.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(pool.subarray(1000, 2000))).toBe(true);

    const head = await get('pool/main/h/hello/hello_1.0_all.deb', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(pool.length));
    expect(await head.text()).toBe('');

    const beyond = await get('pool/main/h/hello/hello_1.0_all.deb', { range: `bytes=${pool.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${pool.length}`);
  });

  it('answers several ranges with the whole file, and honours If-Range as apt sends it when resuming', async () => {
    const several = await get('pool/main/h/hello/hello_1.0_all.deb', { range: 'bytes=0-9,20-29' });
    expect(several.status).toBe(200);
    expect(Buffer.from(await several.arrayBuffer()).equals(pool)).toBe(true);

    const { etag, lastModified } = await get('pool/main/h/hello/hello_1.0_all.deb', {}, 'HEAD').then((r) => ({ etag: r.headers.get('etag')!, lastModified: r.headers.get('last-modified')! }));
    // apt resumes a partial file with Range and If-Range: <its Last-Modified>
    const resumed = await get('pool/main/h/hello/hello_1.0_all.deb', { range: 'bytes=299000-', 'if-range': lastModified });
    expect(resumed.status).toBe(206);
    expect(resumed.headers.get('content-range')).toBe(`bytes 299000-299999/${pool.length}`);
    expect(Buffer.from(await resumed.arrayBuffer()).equals(pool.subarray(299_000))).toBe(true);
    expect((await get('pool/main/h/hello/hello_1.0_all.deb', { range: 'bytes=299000-', 'if-range': etag })).status).toBe(206);
    // a partial file of other bytes: the whole file, not a mix of two
    const changed = await get('pool/main/h/hello/hello_1.0_all.deb', { range: 'bytes=299000-', 'if-range': '"another"' });
    expect(changed.status).toBe(200);
    expect(Number(changed.headers.get('content-length'))).toBe(pool.length);
    await changed.arrayBuffer();
  });

  it('lets curl resume an interrupted download of a streamed package', async () => {
    const file = join(dir, 'large.partial');
    await writeFile(file, large.subarray(0, 10_000_000));
    await runChecked('curl', ['--silent', '--show-error', '--fail', '--user', `${TOKEN}:`, '--continue-at', '-', '--output', file, `${base}/pool/main/l/large/large_1.0_all.deb`]);
    expect(sha256(await readFile(file))).toBe(sha256(large));
  });

  it('reads a large package from disk only as fast as a slow client takes it', async () => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET ${new URL(base).pathname}/pool/main/l/large/large_1.0_all.deb HTTP/1.1\r\nHost: edge\r\nAuthorization: ${basic(TOKEN)}\r\nConnection: close\r\n\r\n`);
    const received: Buffer[] = [];
    // the client reads the head and a first chunk, then stops reading
    await new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        if (received.length === 1) {
          socket.pause();
          resolve();
        }
      }),
    );
    const stream = opened.at(-1)!;
    // the server reads ahead until the socket buffers are full, then waits
    let readAhead = -1;
    while (stream.bytesRead !== readAhead) {
      readAhead = stream.bytesRead;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(readAhead).toBeLessThan(large.length / 4);

    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    const response = Buffer.concat(received);
    expect(sha256(response.subarray(response.length - large.length))).toBe(sha256(large));
    expect(stream.bytesRead).toBe(large.length);
  });

  it('sends every byte right to many clients of a large package at once, whole and by ranges (its read buffers are reused)', async () => {
    const downloads = Array.from({ length: 12 }, async (_, index) => {
      // whole files, and ranges that start and end inside 1 MiB reads
      const start = index % 3 === 0 ? 0 : index * 3_333_333 + 17;
      const end = index % 3 === 0 ? large.length - 1 : start + 2_500_000 + index;
      const response = await get('pool/main/l/large/large_1.0_all.deb', index % 3 === 0 ? {} : { range: `bytes=${start}-${end}` });
      expect(response.status).toBe(index % 3 === 0 ? 200 : 206);
      return sha256(Buffer.from(await response.arrayBuffer())) === sha256(large.subarray(start, end + 1));
    });
    expect(await Promise.all(downloads)).toEqual(Array(12).fill(true));
  });

  it('answers a range of a package many clients ask for from memory after its second request, byte for byte', async () => {
    const range = async () => {
      const readsBefore = opened.length;
      const response = await get('pool/main/m/medium/medium_1.0_all.deb', { range: 'bytes=50000-150000' });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes 50000-150000/${medium.length}`);
      expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(medium.subarray(50_000, 150_001)));
      return opened.length > readsBefore ? 'store' : 'memory';
    };
    expect([await range(), await range()]).toEqual(['store', 'store']);
    // the second request had both blocks read in beside its answer
    await waitFor('the blocks in memory', async () => ((await range()) === 'memory' ? true : undefined), { timeoutMs: 5_000, intervalMs: 10 });
    expect(await range()).toBe('memory');
    const whole = await get('pool/main/m/medium/medium_1.0_all.deb');
    expect(sha256(Buffer.from(await whole.arrayBuffer()))).toBe(sha256(medium));
  });

  it('finds percent-encoded pool names as apt sends them, and answers 404 for unknown files of a known repository', async () => {
    expect((await get('pool/main/h/hello/hello_1.0_all%2edeb')).status).toBe(200);
    expect((await get('dists/bookworm/nothing')).status).toBe(404);
  });

  it('serves the public key without a token', async () => {
    const armored = await fetch(base.replace(/\/debian$/, '/gpg.key'));
    expect(armored.status).toBe(200);
    expect(await armored.text()).toContain('BEGIN PGP PUBLIC KEY BLOCK');
    const keyring = await fetch(base.replace(/\/debian$/, '/keyring.gpg'));
    expect(Buffer.from(await keyring.arrayBuffer())[0]).toBe(0x99);
  });

  it('checks a token once per few seconds, not per request, and counts what it served', async () => {
    // a verdict of now (the earlier tests' may be older than its 4 s on a busy machine)
    await (await get('dists/bookworm/InRelease')).arrayBuffer();
    validations.length = 0;
    await accounting.drain();
    for (let i = 0; i < 20; i++) await (await get('dists/bookworm/InRelease')).arrayBuffer();
    await (await get('pool/main/h/hello/hello_1.0_all.deb')).arrayBuffer();
    expect(validations).toEqual([]);
    const messages = await accounting.drain();
    expect(messages.find((m) => m.type === 'FilesServed')?.data).toMatchObject({ tokenId: 't1', requests: 21, bytes: 20 * inRelease(5).length + pool.length });
    expect(messages.find((m) => m.type === 'PackageDownloaded')?.data).toMatchObject({ packageId: 'p1', count: 1, bytes: pool.length });
  });

  it('exposes request, byte and catalogue counters', async () => {
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/packyard_delivery_requests_total\{kind="metadata",status="200"\} [1-9]/);
    expect(metrics).toMatch(/packyard_delivery_requests_total\{kind="none",status="401"\} [1-9]/);
    expect(metrics).toMatch(/packyard_delivery_bytes_total [1-9]/);
    // one repository read in, none dropped, and its files held
    expect(metrics).toMatch(/packyard_delivery_catalogue_loads_total 1\n/);
    expect(metrics).toMatch(/packyard_delivery_catalogue_evictions_total 0\n/);
    expect(metrics).toMatch(/packyard_delivery_catalogue_files [1-9]/);
  });

  it('serves a file of a generation it has not been told of yet, when the signed index another process serves names it', async () => {
    const other = async (generation: number) => {
      const packagesFile = await put('dists/bookworm/main/binary-amd64/Packages', Buffer.from(`Package: other\nVersion: ${generation}\n`));
      const files = [await put('dists/bookworm/InRelease', inRelease(generation)), { ...packagesFile, path: `dists/bookworm/main/binary-amd64/by-hash/SHA256/${packagesFile.sha256}` }];
      return { published: { ...(await publication(generation, files, [generation - 1].filter((g) => g > 0))), repositoryId: 'r2', repositoryName: 'other' }, byHash: files[1].path };
    };
    const otherBase = base.replace('/tools/', '/other/');
    const fetchOther = (path: string) => fetch(`${otherBase}/${path}`, { headers: { authorization: basic(OTHER_REPO_TOKEN) } });
    const first = await other(1);
    await project('IndexPublished', first.published);
    expect(await (await fetchOther('dists/bookworm/InRelease')).text()).toBe(inRelease(1).toString());

    // another edge worker (or replica) already serves generation 2's InRelease; this one's refresh is on its way
    const second = await other(2);
    await project('IndexPublished', second.published, { refresh: false });
    const late = await fetchOther(second.byHash);
    expect(late.status).toBe(200);
    expect(await late.text()).toBe('Package: other\nVersion: 2\n');
    expect(await (await fetchOther('dists/bookworm/InRelease')).text()).toBe(inRelease(2).toString());
    expect((await fetchOther(`dists/bookworm/main/binary-amd64/by-hash/SHA256/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('asks for the token of a first request while its repository loads, not after', async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // the manifest read waits for the gate: the repository is loading until it opens
    const gated = { getBytes: async (key: string) => (await gate, blobs.getBytes(key)) };
    const asked: string[] = [];
    const verdicts = new VerdictCache(async (token) => (asked.push(token), { valid: true, kind: 'repo_token', tokenId: 't9', ownerId: 'u1', scopes: [], repositoryId: 'r1' }), { ttlMs: 60_000, negativeTtlMs: 1000, maxEntries: 10 });
    const edge = deliveryEdge({
      catalog: new PublishedCatalog(readModels, gated),
      verdicts,
      accounting: new TrafficAccounting(async () => 'p1'),
      blobs,
      publicKeys: new PublicKeys(async () => undefined, async () => ({ armored: '', binary: Buffer.alloc(0) })),
      metrics: new EdgeMetrics(new Registry()),
      packageBodies: new PackageBodyCache((key, range) => blobs.get(key, range), 100_000, 1024 * 1024),
      logger: pino({ level: 'silent' }),
    });
    const fresh = createServer((request, response) => edge.answer(request, replyThrough(response)));
    await new Promise<void>((resolve) => fresh.listen(0, '127.0.0.1', resolve));
    try {
      const answered = fetch(`http://127.0.0.1:${(fresh.address() as AddressInfo).port}/deb/acme/tools/debian/dists/bookworm/InRelease`, { headers: { authorization: basic('pk_live_early') } });
      await waitFor('the token to be asked for', async () => (asked.length > 0 ? true : undefined), { timeoutMs: 5_000 });
      expect(asked).toEqual(['pk_live_early']);
      open();
      expect((await answered).status).toBe(200);
    } finally {
      fresh.close();
    }
  });

  it('serves a distribution other than the one published last at the first request for it (a repository is loaded with that one)', async () => {
    const third = async (version: string, minute: number) =>
      project('IndexPublished', {
        ...(await publication(1, [await put(`dists/${version}/InRelease`, Buffer.from(`${version} of third\n`))], [])),
        repositoryId: 'r3',
        repositoryName: 'third',
        targetDistribution: { distro: 'debian', version },
        publishedAt: new Date(Date.UTC(2024, 2, 5, 11, minute)).toISOString(),
      });
    await third('bookworm', 1);
    await third('bullseye', 2);
    const fetchThird = (version: string) => fetch(`${base.replace('/tools/', '/third/')}/dists/${version}/InRelease`, { headers: { authorization: basic(THIRD_REPO_TOKEN) } });
    const first = await fetchThird('bookworm');
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('bookworm of third\n');
    expect(await (await fetchThird('bullseye')).text()).toBe('bullseye of third\n');
    expect((await fetchThird('trixie')).status).toBe(404);
  });

  it('serves the public keys a generation published, without asking the signing module', async () => {
    const armored = Buffer.from('-----BEGIN PGP PUBLIC KEY BLOCK-----\npublished\n');
    const keyring = Buffer.from([0x99, 7, 7, 7]);
    const keys = [await put('gpg.key', armored), await put('keyring.gpg', keyring)].map((file) => ({ ...file, contentType: 'application/pgp-keys' }));
    await project('IndexPublished', await publication(6, [await put('dists/bookworm/InRelease', inRelease(6))], [5, 4, 3], keys));
    const served = await fetch(base.replace(/\/debian$/, '/gpg.key'));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/pgp-keys');
    expect(await served.text()).toBe(armored.toString());
    expect(Buffer.from(await (await fetch(base.replace(/\/debian$/, '/keyring.gpg'))).arrayBuffer())).toEqual(keyring);
  });

  it('refuses a manifest whose bytes are not the ones published, and keeps serving the generation it had', async () => {
    const forged = await publication(7, [await put('dists/bookworm/InRelease', inRelease(7))], [6, 5, 4]);
    const other = await manifest([await put('dists/bookworm/InRelease', Buffer.from('forged\n'))]);
    await expect(project('IndexPublished', { ...forged, manifest: { ...forged.manifest!, blobKey: other.blobKey } })).rejects.toThrow(/not the one published/);
    const response = await get('dists/bookworm/InRelease');
    expect(await response.text()).toBe(inRelease(6).toString());
  });

  it('stops serving a deleted repository, serves it again as it was once restored, and never after its purge', async () => {
    const ids = { repositoryId: 'r1', workspaceId: 'w1', ownerId: 'u1' };
    const now = new Date().toISOString();
    await project('RepositoryDeleted', { ...ids, deletedAt: now, purgeAt: now, withWorkspace: false });
    expect((await get('dists/bookworm/InRelease')).status).toBe(401);
    // a publication finishing during the grace period is kept, not served
    await project('IndexPublished', await publication(8, [await put('dists/bookworm/InRelease', inRelease(8))], [6]));
    expect((await get('dists/bookworm/InRelease')).status).toBe(401);
    await project('RepositoryRestored', { ...ids, restoredAt: now });
    const restored = await get('dists/bookworm/InRelease');
    expect(restored.status).toBe(200);
    expect(await restored.text()).toContain('Generation: 8');

    await project('RepositoryDeleted', { ...ids, deletedAt: now, purgeAt: now, withWorkspace: false });
    await project('RepositoryPurged', { ...ids, purgedAt: now });
    expect((await get('dists/bookworm/InRelease')).status).toBe(401);
    // nothing late brings a purged repository back
    await project('IndexPublished', await publication(9, [await put('dists/bookworm/InRelease', inRelease(9))], [8]));
    await project('RepositoryRestored', { ...ids, restoredAt: now });
    expect((await get('dists/bookworm/InRelease')).status).toBe(401);
  });
});
