import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { freshDebianRoot, runInRoot, startPackyard, type DebianRoot, type RunningPackyard } from '@packyard/testing';
import { runCommand } from '@packyard/testing/clients/run-command';
import { buildSourcePackage, type BuiltSourcePackage } from '@packyard/testing/packages/source-package.builder';
import { run, scratchDir, storedFiles, upload } from './pipeline-fixture';

// Debian source packages as a maintainer ships them: dpkg-source builds one, its .dsc is
// clearsigned, the .dsc and its tarballs go up in one upload, and apt-get source on a real
// Debian machine, set up by the console's instructions, fetches every file intact.

let packyard: RunningPackyard;
let session: ApiSession;
let work: string;
let root: DebianRoot | undefined;
let repo: { id: string; path: string; token: string };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const filesOf = async (built: BuiltSourcePackage) => Promise.all(built.files.map(async (file) => ({ name: basename(file), bytes: await readFile(file) })));

/** clearsigns the .dsc in place, as debsign does: a maintainer's signature Packyard must keep */
async function clearsign(dsc: string): Promise<void> {
  const home = join(work, 'gnupg');
  await mkdir(home, { recursive: true, mode: 0o700 });
  const env = { ...process.env, GNUPGHOME: home };
  const gpg = (args: string[]) => run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env });
  await gpg(['--quick-gen-key', 'Maintainer <maintainer@example.com>', 'ed25519', 'sign', 'never']);
  await gpg(['--clearsign', '--output', `${dsc}.signed`, dsc]);
  await cp(`${dsc}.signed`, dsc);
  await runCommand('gpgconf', ['--kill', 'gpg-agent'], { env });
}

beforeAll(async () => {
  packyard = await startPackyard();
  session = await registerUser(packyard);
  work = await scratchDir();
  const workspace = (await session.call('POST', '/workspaces', { name: 'Sources', slug: `sources-${Date.now()}` })).body;
  const deb = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'src', kind: 'DEB', codename: 'bookworm', component: 'main' })).body;
  const token = (await session.call('POST', `/repos/${deb.id}/tokens`, { name: 'apt' })).body.token;
  repo = { id: deb.id, path: `/workspaces/${workspace.id}/repos/${deb.id}`, token };
}, 60_000);

afterAll(async () => {
  await root?.cleanup();
  await packyard?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('Debian source packages', () => {
  it('refuses a .dsc whose files are missing, extra or different, storing nothing', async () => {
    const built = await buildSourcePackage({ name: 'refused-src', upstreamVersion: '1.0' }, join(work, 'refused'));
    const files = await filesOf(built);
    const dsc = files.find((file) => file.name.endsWith('.dsc'))!;
    const debianTar = files.find((file) => file.name.endsWith('.debian.tar.xz'))!;
    // packages and staged uploads, not the index generations publishing writes meanwhile
    const packageFiles = async () => (await storedFiles(packyard)).filter((path) => /^(packages|staging)\//.test(path));
    const before = await packageFiles();

    const alone = await upload(packyard, session, repo.path, dsc, 'debian/bookworm');
    expect(alone).toMatchObject({ status: 400, body: { status: 400, message: expect.stringMatching(/^Invalid source package: the \.dsc lists refused-src_1\.0\.orig\.tar\.gz, refused-src_1\.0-1\.debian\.tar\.xz, which the upload does not include/) } });

    const tampered = Buffer.from(debianTar.bytes);
    tampered[tampered.length - 1] ^= 0xff;
    const changed = await upload(packyard, session, repo.path, files.map((file) => (file === debianTar ? { ...file, bytes: tampered } : file)), 'debian/bookworm');
    expect(changed).toMatchObject({ status: 400, body: { message: 'Invalid source package: the SHA-256 of refused-src_1.0-1.debian.tar.xz is not the one the .dsc states' } });

    const shorter = await upload(packyard, session, repo.path, files.map((file) => (file === debianTar ? { ...file, bytes: tampered.subarray(1) } : file)), 'debian/bookworm');
    expect(shorter.body.message).toBe(`Invalid source package: refused-src_1.0-1.debian.tar.xz has ${tampered.length - 1} bytes, the .dsc says ${tampered.length}`);

    const extra = await upload(packyard, session, repo.path, [...files, { name: 'notes.txt', bytes: Buffer.from('hi') }], 'debian/bookworm');
    expect(extra).toMatchObject({ status: 400, body: { message: 'Invalid source package: notes.txt is not listed in the .dsc' } });

    // several files without a .dsc stay what they always were: one package per upload
    const twoTarballs = await upload(packyard, session, repo.path, files.filter((file) => file !== dsc), 'debian/bookworm');
    expect(twoTarballs).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^Exactly one "file" part is allowed/) } });

    expect(await packageFiles()).toEqual(before);
  });

  it('publishes a clearsigned source package in Sources that apt-get source fetches intact, as apt-ftparchive would index it', async () => {
    const built = await buildSourcePackage({ name: 'packyard-src', upstreamVersion: '2.1', fields: [['Homepage', 'https://src.example'], ['Vcs-Git', 'https://git.example/src.git']] }, join(work, 'good'));
    await clearsign(built.dsc);
    const files = await filesOf(built);
    const answer = await upload(packyard, session, repo.path, files, 'debian/bookworm');
    expect(answer.status).toBe(201);
    const dscBytes = files.find((file) => file.name.endsWith('.dsc'))!.bytes;
    expect(answer.body).toMatchObject({ name: 'packyard-src', version: '2.1-1', architecture: 'source', filename: 'packyard-src_2.1-1.dsc', sizeBytes: dscBytes.length });

    // its package page lists the files of the source package, the .dsc first
    const page = await session.call('GET', `${repo.path}/packages/${answer.body.id}`);
    expect(page).toMatchObject({ status: 200, body: { summary: 'source package packyard-src', files: expect.arrayContaining(files.map((file) => file.name)) } });
    expect(page.body.files).toHaveLength(files.length);
    expect(page.body.files[0]).toBe(answer.body.filename);

    // the Sources stanza is the one apt-ftparchive writes for the same files in the same pool directory
    const snippets = (await session.call('GET', `/repos/${repo.id}/snippets?codename=bookworm&component=main&token=${repo.token}`)).body;
    const auth = { authorization: `Basic ${Buffer.from(`${repo.token}:`).toString('base64')}` };
    const served = await fetch(`${snippets.repositoryUrl}/debian/dists/bookworm/main/source/Sources`, { headers: auth });
    expect(served.status).toBe(200);
    const sources = await served.text();
    const directory = /^Directory: (.+)$/m.exec(sources)![1];
    expect(directory).toBe('pool/main/p/packyard-src/debian/bookworm');
    const reference = join(work, 'reference');
    await mkdir(join(reference, directory), { recursive: true });
    for (const file of files) await writeFile(join(reference, directory, file.name), file.bytes);
    const { stdout } = await run('apt-ftparchive', ['sources', 'pool'], { cwd: reference });
    expect(sources).toBe(stdout);
    const inRelease = await (await fetch(`${snippets.repositoryUrl}/debian/dists/bookworm/InRelease`, { headers: auth })).text();
    for (const path of ['main/source/Sources', 'main/source/Sources.gz', 'main/source/Sources.xz', 'contrib/source/Sources']) expect(inRelease).toMatch(new RegExp(` ${path.replaceAll('.', '\\.')}$`, 'm'));

    // a Debian machine set up by the console's instructions (deb and deb-src lines) fetches the package's files
    expect(snippets.apt).toContain(`deb-src [signed-by=/etc/apt/keyrings/src.gpg] ${snippets.repositoryUrl}/debian bookworm main`);
    root = await freshDebianRoot();
    const setup = await runInRoot(root, `set -e\n${snippets.apt}`);
    expect(setup.stderr).not.toMatch(/^(W|E): /m);
    expect(setup.code).toBe(0);
    const fetched = await runInRoot(root, 'set -e; mkdir -p /tmp/src && cd /tmp/src && apt-get source --download-only packyard-src && sha256sum *');
    expect(fetched.code).toBe(0);
    const digests = Object.fromEntries(fetched.stdout.split('\n').filter((line) => /^[0-9a-f]{64} /.test(line)).map((line) => [line.slice(66), line.slice(0, 64)]));
    expect(digests).toEqual(Object.fromEntries(files.map((file) => [file.name, sha256(file.bytes)])));
    // the maintainer's signature came through untouched
    expect((await readFile(join(root.path, 'tmp/src/packyard-src_2.1-1.dsc'), 'utf8')).startsWith('-----BEGIN PGP SIGNED MESSAGE-----')).toBe(true);
  });

  it('keeps an orig tarball two revisions share until the last of them is deleted, and refuses another with its name', async () => {
    const first = await buildSourcePackage({ name: 'shared-src', upstreamVersion: '3.0' }, join(work, 'rev1'));
    const firstFiles = await filesOf(first);
    const orig = firstFiles.find((file) => file.name.endsWith('.orig.tar.gz'))!;
    // the second revision: the same orig tarball, a new debian/ directory
    const second = await buildSourcePackage({ name: 'shared-src', upstreamVersion: '3.0', revision: '2' }, join(work, 'rev2'));
    const secondFiles = (await filesOf(second)).map((file) => (file.name === orig.name ? orig : file));
    expect(sha256(secondFiles.find((file) => file.name === orig.name)!.bytes)).toBe(sha256(orig.bytes));
    const uploaded = [];
    for (const files of [firstFiles, secondFiles]) {
      const answer = await upload(packyard, session, repo.path, files, 'debian/any-version');
      expect(answer.status).toBe(201);
      uploaded.push(answer.body.id);
    }
    // a third revision whose orig tarball has the same name but other bytes would change what the first two list
    const other = await buildSourcePackage({ name: 'shared-src', upstreamVersion: '3.0', revision: '3', readme: 'repacked\n' }, join(work, 'rev3'));
    const clash = await upload(packyard, session, repo.path, await filesOf(other), 'debian/any-version');
    expect(clash).toMatchObject({ status: 409, body: { message: 'shared-src_3.0.orig.tar.gz is already in debian/any-version with other contents; a source package must bring the same bytes under that name' } });
    expect((await upload(packyard, session, repo.path, await filesOf(other), 'debian/bookworm')).status).toBe(201);
    const origStored = async () => (await storedFiles(packyard)).some((path) => path.endsWith(sha256(orig.bytes)));
    expect(await origStored()).toBe(true);
    expect((await session.call('DELETE', `${repo.path}/packages/${uploaded[0]}`)).status).toBe(204);
    expect(await origStored()).toBe(true);
    expect((await session.call('DELETE', `${repo.path}/packages/${uploaded[1]}`)).status).toBe(204);
    expect(await origStored()).toBe(false);
  });
});
