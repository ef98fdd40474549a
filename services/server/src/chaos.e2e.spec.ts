import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiSession, registerUser, type ApiSession } from '@packyard/testing/api-session';
import { aptGet, freshDebianRoot, runInRoot, startPackyard, type DebianRoot, type RunningPackyard } from '@packyard/testing';
import { runCommand } from '@packyard/testing/clients/run-command';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';

// kill -9 at random points of a burst of uploads and deletes, restart, and check what a
// user and apt would: every acknowledged upload is there and installable, nothing else is
// half there, the signed indices verify and list only files that exist, no leftovers.

const ROUNDS = 3;
const BURST = 10;
// short idle timeout and deadline, so a leftover of a kill can be told apart from a live
// upload after a few seconds: ABANDONED_BLOBS_AFTER_S must stay well above both (the sweep
// would take a put or a claim in progress), and the default of 120 s would keep the last
// kill's leftovers past the check below
const ENV = { HTTP_IDLE_TIMEOUT_S: '3', GRPC_DEADLINE_MS: '3000', ABANDONED_BLOBS_AFTER_S: '8' };

const dataDir = mkdtempSync(join(tmpdir(), 'packyard-chaos-'));
let packyard: RunningPackyard | undefined;
let root: DebianRoot | undefined;

afterAll(async () => {
  await packyard?.stop('SIGKILL');
  await root?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

/** the files under blobs/<folder>, as paths relative to blobs/ */
const filesUnder = (folder: string) => {
  try {
    return readdirSync(join(dataDir, 'blobs', folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(join(dataDir, 'blobs'), join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
};

async function upload(session: ApiSession, repoPath: string, name: string) {
  const form = new FormData();
  form.append('distribution', 'debian/bookworm');
  form.append('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText(name, '1.0-1', 'all') }))]), `${name}.deb`);
  const response = await fetch(`${packyard!.url}/api/v1${repoPath}/upload`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
  return response.status === 201 ? ((await response.json()) as { id: string }).id : undefined;
}

describe('kill -9 during bursts of uploads and deletes', () => {
  it('keeps every acknowledged change, half of none, and verifiable indices', async () => {
    packyard = await startPackyard({ dataDir, env: ENV });
    let session = await registerUser(packyard);
    const workspace = (await session.call('POST', '/workspaces', { name: 'Chaos', slug: `chaos-${Date.now()}` })).body;
    const repo = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
    const repoPath = `/workspaces/${workspace.id}/repos/${repo.id}`;
    const token = (await session.call('POST', `/repos/${repo.id}/tokens`, { name: 'chaos' })).body.token as string;
    const acknowledged = new Map<string, string>(); // package id → name
    const deleted = new Set<string>();
    const kills: number[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      let firstAcknowledged!: () => void;
      const someAcknowledged = new Promise<void>((resolve) => (firstAcknowledged = resolve));
      const uploads = Array.from({ length: BURST }, (_, i) =>
        upload(session, repoPath, `chaos-${round}-${i}`)
          .then((id) => {
            if (!id) return;
            acknowledged.set(id, `chaos-${round}-${i}`);
            firstAcknowledged();
          })
          .catch(() => undefined),
      );
      const victims = [...acknowledged.keys()].filter((id) => !deleted.has(id)).slice(0, 3);
      const deletes = victims.map((id) => session.call('DELETE', `${repoPath}/packages/${id}`).then((answer) => answer.status === 204 && deleted.add(id)).catch(() => undefined));
      // somewhere in the middle of the burst: after its first answer, while the rest are in flight
      await Promise.race([someAcknowledged, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      const killAfter = Math.floor(Math.random() * 800);
      kills.push(killAfter);
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      await packyard.stop('SIGKILL');
      await Promise.all([...uploads, ...deletes]);
      packyard = await startPackyard({ dataDir, env: ENV });
      session = apiSession(packyard, session.bearer, session.email);
    }
    console.log(`${ROUNDS} kills ${kills.join(', ')} ms after a burst's first answer; ${acknowledged.size} of ${ROUNDS * BURST} uploads and ${deleted.size} deletes acknowledged`);
    expect(acknowledged.size).toBeGreaterThan(0);

    // listed: every acknowledged upload not deleted; nothing acknowledged as deleted
    const listed = new Map<string, string>(
      ((await session.call('GET', `${repoPath}/packages?page=0&size=100`)).body.items as { id: string; name: string }[]).map((item) => [item.id, item.name]),
    );
    for (const [id, name] of acknowledged) if (!deleted.has(id)) expect({ name, listed: listed.has(id) }).toEqual({ name, listed: true });
    for (const id of deleted) expect(listed.has(id)).toBe(false);

    // the published index settles on exactly the listed packages, signed and complete
    const snippets = (await session.call('GET', `/repos/${repo.id}/snippets?codename=bookworm&component=main`)).body;
    const base = (snippets.repositoryUrl as string).replace(/^https?:\/\/[^/]+/, packyard.url);
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    const fetchBytes = async (path: string) => {
      const response = await fetch(`${base}/debian/${path}`, { headers: auth });
      return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
    };
    const expectedNames = [...listed.values()].sort();
    await expect
      .poll(
        async () => {
          const packages = (await fetchBytes('dists/bookworm/main/binary-amd64/Packages')).bytes.toString();
          return [...packages.matchAll(/^Package: (.+)$/gm)].map((match) => match[1]).sort();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(expectedNames);
    // every package the index lists is there, byte for byte
    const index = (await fetchBytes('dists/bookworm/main/binary-amd64/Packages')).bytes.toString();
    expect([...index.matchAll(/^Filename: .+$[\s\S]*?^SHA256: [0-9a-f]{64}$/gm)].length).toBe(listed.size);
    for (const [, filename, sha256] of index.matchAll(/^Filename: (.+)$[\s\S]*?^SHA256: ([0-9a-f]{64})$/gm)) {
      const pool = await fetchBytes(filename);
      expect({ filename, status: pool.status, sha256: createHash('sha256').update(pool.bytes).digest('hex') }).toEqual({ filename, status: 200, sha256 });
    }
    const work = mkdtempSync(join(tmpdir(), 'packyard-chaos-gpg-'));
    try {
      const key = await fetch(snippets.publicKeyUrl.replace(/^https?:\/\/[^/]+/, packyard.url));
      writeFileSync(join(work, 'key.gpg'), Buffer.from(await key.arrayBuffer()));
      const inRelease = await fetchBytes('dists/bookworm/InRelease');
      writeFileSync(join(work, 'InRelease'), inRelease.bytes);
      const keyring = join(work, 'keyring.gpg');
      await runCommand('gpg', ['--batch', '--no-default-keyring', '--keyring', keyring, '--import', join(work, 'key.gpg')]);
      expect((await runCommand('gpgv', ['--keyring', keyring, join(work, 'InRelease')])).code).toBe(0);
      const listedFiles = [...inRelease.bytes.toString().split('SHA256:')[1].matchAll(/^ ([0-9a-f]{64})\s+\d+\s+(\S+)$/gm)];
      expect(listedFiles.length).toBeGreaterThan(0);
      for (const [, sha256, path] of listedFiles) {
        const file = await fetchBytes(`dists/bookworm/${path}`);
        expect({ path, status: file.status, sha256: createHash('sha256').update(file.bytes).digest('hex') }).toEqual({ path, status: 200, sha256 });
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }

    // leftovers of the kills go once no upload can own them (ABANDONED_BLOBS_AFTER_S, then the next sweep)
    await expect.poll(() => [...filesUnder('.tmp'), ...filesUnder('staging')], { timeout: 30_000, interval: 1000 }).toEqual([]);

    // and apt installs an acknowledged upload
    root = await freshDebianRoot();
    const installer = await runInRoot(root, (snippets.setupCommands.oneLiner as string).replace('YOUR_TOKEN', token).replace(/https?:\/\/[^/"' ]+/g, packyard.url));
    expect(installer.code).toBe(0);
    const survivor = [...acknowledged].find(([id]) => !deleted.has(id))![1];
    expect((await aptGet(root, ['install', '-y', survivor])).code).toBe(0);
    expect((await runInRoot(root, 'dpkg-query -W -f=\'${Status}\' "$1"', [survivor])).stdout).toBe('install ok installed');
  }, 600_000);
});
