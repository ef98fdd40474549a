import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { freshDebianRoot, runInRoot, startPackyard, type DebianRoot, type RunningPackyard } from '@packyard/testing';
import { readStanzas } from '@packyard/testing/packages/apt-stanzas';
import { buildDeb } from '@packyard/testing/packages/deb.builder';
import { run, scratchDir, upload } from './pipeline-fixture';

// .udeb and .ddeb beside ordinary packages: debian-installer packages go where Debian and
// reprepro put them and never reach apt's binary index; debug symbols go to `main/debug`
// (Launchpad's and reprepro's layout), which apt installs from with a sources line of its own.

let packyard: RunningPackyard;
let session: ApiSession;
let work: string;
let root: DebianRoot | undefined;
let repo: { id: string; path: string; token: string; snippets: { apt: string; repositoryUrl: string } };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const edge = async (path: string) => {
  const response = await fetch(`${repo.snippets.repositoryUrl}/debian/${path}`, { headers: { authorization: `Basic ${Buffer.from(`${repo.token}:`).toString('base64')}` } });
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return Buffer.from(await response.arrayBuffer());
};

beforeAll(async () => {
  packyard = await startPackyard();
  session = await registerUser(packyard);
  work = await scratchDir();
  const workspace = (await session.call('POST', '/workspaces', { name: 'Kinds', slug: `kinds-${Date.now()}` })).body;
  const deb = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'kinds', kind: 'DEB', codename: 'bookworm', component: 'main' })).body;
  const token = (await session.call('POST', `/repos/${deb.id}/tokens`, { name: 'apt' })).body.token;
  const snippets = (await session.call('GET', `/repos/${deb.id}/snippets?codename=bookworm&component=main&token=${token}`)).body;
  repo = { id: deb.id, path: `/workspaces/${workspace.id}/repos/${deb.id}`, token, snippets };
}, 60_000);

afterAll(async () => {
  await root?.cleanup();
  await packyard?.dispose();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('debian-installer and debug-symbol packages', () => {
  it('indexes a .udeb in debian-installer/binary-<arch> as reprepro does, never in the binary index', async () => {
    const udebFile = await buildDeb({ name: 'di-hello', version: '1.0', arch: 'amd64' }, join(work, 'udeb'));
    const udeb = await readFile(udebFile);
    const answer = await upload(packyard, session, repo.path, { name: 'di-hello_1.0_amd64.udeb', bytes: udeb }, 'debian/bookworm');
    expect(answer).toMatchObject({ status: 201, body: { name: 'di-hello', filename: 'di-hello_1.0_amd64.udeb', architecture: 'amd64' } });

    const release = (await edge('dists/bookworm/InRelease')).toString('utf8');
    for (const file of ['Packages', 'Packages.gz', 'Packages.xz']) expect(release).toMatch(new RegExp(` main/debian-installer/binary-amd64/${file.replace('.', '\\.')}$`, 'm'));
    const installer = readStanzas((await edge('dists/bookworm/main/debian-installer/binary-amd64/Packages')).toString('utf8'));
    expect([...installer.keys()]).toEqual(['di-hello']);
    expect(readStanzas((await edge('dists/bookworm/main/binary-amd64/Packages')).toString('utf8')).has('di-hello')).toBe(false);
    const ours = installer.get('di-hello')!;
    expect(ours.Filename).toBe('pool/main/d/di-hello/debian/bookworm/di-hello_1.0_amd64.udeb');
    expect(sha256(await edge(ours.Filename))).toBe(sha256(udeb));

    // reprepro with UDebComponents: the same index path and the same stanza (it writes no SHA512 and its own field order)
    const reprepro = join(work, 'reprepro');
    await mkdir(join(reprepro, 'conf'), { recursive: true });
    await writeFile(join(reprepro, 'conf/distributions'), 'Codename: bookworm\nArchitectures: amd64\nComponents: main\nUDebComponents: main\n');
    const udebPath = join(work, 'di-hello_1.0_amd64.udeb');
    await writeFile(udebPath, udeb);
    await run('reprepro', ['--basedir', reprepro, 'includeudeb', 'bookworm', udebPath]);
    const theirs = readStanzas(await readFile(join(reprepro, 'dists/bookworm/main/debian-installer/binary-amd64/Packages'), 'utf8')).get('di-hello')!;
    expect(theirs.Filename).toBe('pool/main/d/di-hello/di-hello_1.0_amd64.udeb');
    const { SHA512: _sha512, Filename: _ours, ...comparable } = ours;
    const { Filename: _theirs, ...reference } = theirs;
    expect(comparable).toEqual(reference);
  });

  it('publishes a .ddeb in main/debug, from where apt-get install <name>-dbgsym installs it', async () => {
    const program = await buildDeb({ name: 'hello-sym', version: '1.0-1', arch: 'amd64' }, join(work, 'ddeb'));
    const symbolsBuilt = await buildDeb(
      {
        name: 'hello-sym-dbgsym', version: '1.0-1', arch: 'amd64', depends: 'hello-sym (= 1.0-1)', description: 'debug symbols for hello-sym',
        fields: [['Auto-Built-Package', 'debug-symbols'], ['Build-Ids', '0123456789abcdef0123456789abcdef01234567']],
      },
      join(work, 'ddeb'),
    );
    const symbols = await readFile(symbolsBuilt);
    expect((await upload(packyard, session, repo.path, { name: 'hello-sym_1.0-1_amd64.deb', bytes: await readFile(program) }, 'debian/bookworm')).status).toBe(201);
    const answer = await upload(packyard, session, repo.path, { name: 'hello-sym-dbgsym_1.0-1_amd64.ddeb', bytes: symbols }, 'debian/bookworm');
    expect(answer).toMatchObject({ status: 201, body: { filename: 'hello-sym-dbgsym_1.0-1_amd64.ddeb' } });

    const release = (await edge('dists/bookworm/Release')).toString('utf8');
    expect(release).toMatch(/ main\/debug\/binary-amd64\/Packages$/m);
    const debug = readStanzas((await edge('dists/bookworm/main/debug/binary-amd64/Packages')).toString('utf8'));
    expect(debug.get('hello-sym-dbgsym')?.Filename).toBe('pool/main/h/hello-sym-dbgsym/debian/bookworm/hello-sym-dbgsym_1.0-1_amd64.ddeb');
    expect(readStanzas((await edge('dists/bookworm/main/binary-amd64/Packages')).toString('utf8')).has('hello-sym-dbgsym')).toBe(false);

    // a machine set up by the instructions, plus the debug line Ubuntu's ddebs need
    root = await freshDebianRoot();
    const debugLine = `deb [signed-by=/etc/apt/keyrings/kinds.gpg] ${repo.snippets.repositoryUrl}/debian bookworm main/debug`;
    const setup = await runInRoot(root, `set -e\n${repo.snippets.apt}\necho "$1" >>/etc/apt/sources.list.d/kinds.list\napt-get update`, [debugLine]);
    expect(`${setup.stdout}${setup.stderr}`).not.toMatch(/^(W|E|N): /m);
    expect(setup.code).toBe(0);
    // debian-installer packages stay out of apt's view
    expect((await runInRoot(root, 'apt-cache show di-hello')).code).not.toBe(0);
    const installed = await runInRoot(root, 'apt-get install -y hello-sym-dbgsym && dpkg-query -W -f \'${Package} ${Version} ${Status}\\n\' hello-sym hello-sym-dbgsym');
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('hello-sym 1.0-1 install ok installed\nhello-sym-dbgsym 1.0-1 install ok installed');
  });
});
