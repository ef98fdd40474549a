import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';

let packyard: RunningPackyard;
let session: ApiSession;
let uploadPath: string;

const BOUNDARY = 'packyard-abuse-boundary';

/** the descriptors the server process holds open right now */
const openDescriptors = () => readdirSync(`/proc/${packyard.child.pid}/fd`).length;

/** files under a folder of the blob store (absent folder: none) */
const filesUnder = (folder: string): string[] => {
  try {
    return readdirSync(join(packyard.dataDir, 'blobs', folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
};

/** a raw HTTP request on its own socket: the head and the start of the body, then whatever `then` does */
function rawUpload(head: Record<string, string>, body: Buffer): Promise<{ socket: ReturnType<typeof connect>; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(packyard.port, '127.0.0.1', () => {
      const lines = [`POST /api/v1${uploadPath} HTTP/1.1`, 'host: 127.0.0.1', `authorization: Bearer ${session.bearer}`, ...Object.entries(head).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      socket.write(body);
      let received = '';
      socket.on('data', (chunk) => (received += chunk));
      const answer = new Promise<string>((done) => {
        socket.on('close', () => done(received));
        socket.on('error', () => undefined);
      });
      resolve({ socket, answer });
    });
    socket.once('error', reject);
  });
}

/** a multipart body with a file part named `filename`, cut after `bytes` bytes of content */
const fileStart = (filename: string, bytes: number) =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="distribution"\r\n\r\nubuntu/noble\r\n`),
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="${filename}"\r\ncontent-type: application/octet-stream\r\n\r\n`),
    Buffer.alloc(bytes, 7),
  ]);

/** POSTs a complete multipart body as given (raw bytes, so it can be malformed on purpose) */
async function postRaw(body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  const response = await fetch(`${packyard.url}/api/v1${uploadPath}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.bearer}`, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  return { status: response.status, body: (await response.json()) as { status: number; message: string } };
}

const part = (headers: string, content: Buffer | string) => Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]);
const end = Buffer.from(`--${BOUNDARY}--\r\n`);

beforeAll(async () => {
  packyard = await startPackyard();
  session = await registerUser(packyard);
  const workspace = (await session.call('POST', '/workspaces', { name: 'Abuse', slug: `abuse-${Date.now()}` })).body;
  const repo = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
  uploadPath = `/workspaces/${workspace.id}/repos/${repo.id}/upload`;
});

afterAll(async () => {
  await packyard?.dispose();
});

describe('aborted uploads', () => {
  it('release their descriptor and temporary file within a second', async () => {
    // warm up: the first upload opens the stores' files for good
    const warm = await rawUpload({ 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(10_000_000) }, fileStart('warm.deb', 64 * 1024));
    warm.socket.destroy();
    await new Promise((r) => setTimeout(r, 1000));
    const before = openDescriptors();

    const aborts = 50;
    const sockets = await Promise.all(
      Array.from({ length: aborts }, () => rawUpload({ 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(10_000_000) }, fileStart('cut.deb', 256 * 1024))),
    );
    // every upload has its temporary file open before the clients go away
    await expect.poll(() => filesUnder('.tmp').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(aborts);
    for (const { socket } of sockets) socket.destroy();
    const abortedAt = Date.now();
    await expect.poll(() => openDescriptors() <= before + 2 && filesUnder('.tmp').length === 0, { timeout: 1000, interval: 50 }).toBe(true);
    console.log(`${aborts} aborted uploads: descriptors ${before} before, ${openDescriptors()} ${Date.now() - abortedAt} ms after the aborts; temporary files left: ${filesUnder('.tmp').length}`);
    expect(filesUnder('staging')).toEqual([]);
    // and the server still takes a whole upload
    const form = new FormData();
    form.append('distribution', 'ubuntu/noble');
    form.append('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText('after-aborts') }))]), 'after-aborts.deb');
    const response = await fetch(`${packyard.url}/api/v1${uploadPath}`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
    expect(response.status).toBe(201);
  });
});

describe('malformed multipart', () => {
  const deb = () => craftDeb({ control: validControlText('well-formed') });

  it('answers 400 for a NUL or a newline in the file name', async () => {
    const upload = async (disposition: string) =>
      postRaw(Buffer.concat([part('content-disposition: form-data; name="distribution"', 'ubuntu/noble'), part(`content-disposition: form-data; name="file"; ${disposition}`, await deb()), end]));
    // raw in the part header: the header itself is malformed
    for (const filename of ['evil\u0000.deb', 'evil\n.deb']) {
      expect({ filename, ...(await upload(`filename="${filename}"`)) }).toMatchObject({ filename, status: 400, body: { status: 400, message: 'Malformed multipart body: Malformed part header' } });
    }
    // percent-encoded (RFC 5987): a well-formed header naming a file no one should store
    for (const encoded of ['evil%00.deb', 'evil%0A.deb', 'evil%0D.deb']) {
      expect({ encoded, ...(await upload(`filename*=UTF-8''${encoded}`)) }).toMatchObject({ encoded, status: 400, body: { status: 400, message: 'The file name must not contain control characters' } });
    }
    expect(filesUnder('staging')).toEqual([]);
  });

  it('answers 400 for a body that is not multipart under a multipart content type', async () => {
    for (const body of [Buffer.from('{"file": "not a form"}'), Buffer.from(`--${BOUNDARY}\r\nno headers end`), Buffer.alloc(0)]) {
      const answer = await postRaw(body);
      expect(answer.status).toBe(400);
      expect(answer.body.message).toMatch(/^Malformed multipart body: /);
    }
    const noBoundary = await postRaw(Buffer.from('x'), 'multipart/form-data');
    expect(noBoundary).toMatchObject({ status: 400, body: { message: 'The upload must be a multipart/form-data body with a "file" part' } });
  });

  it('answers 400 for two file parts or two distributions, never silently one of them', async () => {
    const file = part('content-disposition: form-data; name="file"; filename="a.deb"', await deb());
    const distribution = (value: string) => part('content-disposition: form-data; name="distribution"', value);
    const twoFiles = await postRaw(Buffer.concat([distribution('ubuntu/noble'), file, file, end]));
    expect(twoFiles).toMatchObject({ status: 400, body: { message: 'Exactly one "file" part is allowed (several only for a Debian source package: one .dsc and the files it lists)' } });
    const twoDistributions = await postRaw(Buffer.concat([distribution('ubuntu/noble'), file, distribution('ubuntu/jammy'), end]));
    expect(twoDistributions).toMatchObject({ status: 400, body: { message: 'Exactly one "distribution" field is allowed' } });
    // publishing the earlier upload may still be writing index files of its own
    await expect.poll(() => filesUnder('.tmp'), { timeout: 10_000 }).toEqual([]);
    expect(filesUnder('staging')).toEqual([]);
  });
});

describe('leftovers of a crash', () => {
  it('are cleared at start when no upload in flight can own them any more', async () => {
    await packyard.stop('SIGKILL');
    const blobs = join(packyard.dataDir, 'blobs');
    const leftover = (path: string, ageMs: number) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, Buffer.alloc(1024));
      const written = new Date(Date.now() - ageMs);
      utimesSync(path, written, written);
    };
    leftover(join(blobs, '.tmp', 'half-written'), 3600_000);
    leftover(join(blobs, 'staging', 'never-claimed'), 3600_000);
    // just staged: another gateway process sharing the store may be about to claim it
    leftover(join(blobs, 'staging', 'just-staged'), 0);
    const kept = filesUnder('packages');
    expect(kept.length).toBeGreaterThan(0);
    const restarted = await startPackyard({ dataDir: packyard.dataDir });
    try {
      // the restarted program's own puts may be under way: only the leftover must be gone
      expect(filesUnder('.tmp')).not.toContain('half-written');
      expect(filesUnder('staging')).toEqual(['just-staged']);
      expect(filesUnder('packages')).toEqual(kept);
      expect(restarted.output()).toMatch(/"removed":1,"msg":"removed abandoned temporary blobs"/);
      expect(restarted.output()).toMatch(/"removed":1,"msg":"removed abandoned staged uploads"/);
    } finally {
      await restarted.stop();
    }
  });
});
