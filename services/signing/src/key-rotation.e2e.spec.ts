import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '@packyard/artifact/e2e/pipeline-fixture';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { runCommand } from '@packyard/testing/clients/run-command';
import { buildDeb, buildRpm, dnf, dnfRoot, freshDebianRoot, runInRoot, startPackyard, type DebianRoot, type RpmRoot, type RunningPackyard, waitFor } from '@packyard/testing';

// A key roll as customers live through it: apt and dnf machines set up with the old key keep
// updating and installing while the new key takes over, and after the overlap only the new
// key signs. The overlap is seconds long here and the signing module checks every second.

const OVERLAP_SECONDS = 75;

interface Snippets { apt: string; repositoryUrl: string; publicKeyUrl: string }
interface KeyInfo { fingerprint: string; status: string; expiresAt: string | null; signsUntil: string | null }

describe('rolling a repository key with an overlap', () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let work: string;
  let debianRoot: DebianRoot | undefined;
  let rpmRoot: RpmRoot | undefined;

  beforeAll(async () => {
    packyard = await startPackyard({ env: { SIGNING_KEY_CHECK_INTERVAL_S: '1' } });
    session = await registerUser(packyard);
    work = await mkdtemp(join(tmpdir(), 'packyard-key-roll-'));
  }, 60_000);
  afterAll(async () => {
    await debianRoot?.cleanup();
    await rpmRoot?.cleanup();
    await packyard?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const call = async <T>(method: string, path: string, body?: unknown, status = [200, 201]): Promise<T> => {
    const answer = await session.call<T>(method, path, body);
    if (!status.includes(answer.status)) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  /** the fingerprints gpgv reports good signatures of, for a served InRelease, checked against the served keyring */
  async function inReleaseSigners(repositoryUrl: string, token: string): Promise<string[]> {
    const auth = { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` };
    await writeFile(join(work, 'InRelease'), Buffer.from(await (await fetch(`${repositoryUrl}/debian/dists/bookworm/InRelease`, { headers: auth })).arrayBuffer()));
    await writeFile(join(work, 'keyring.gpg'), Buffer.from(await (await fetch(`${repositoryUrl}/keyring.gpg`)).arrayBuffer()));
    const verified = await runCommand('gpgv', ['--status-fd', '1', '--keyring', join(work, 'keyring.gpg'), join(work, 'InRelease')]);
    return [...verified.stdout.matchAll(/VALIDSIG ([0-9A-F]{40})/g)].map((match) => match[1]).sort();
  }

  it('keeps apt and dnf clients set up with the old key updating through the roll, then signs with the new key alone', async () => {
    const workspace = await call<{ id: string }>('POST', '/workspaces', { name: 'Keys', slug: 'keys-roll', description: '' });
    const repos = `/workspaces/${workspace.id}/repos`;
    const deb = await call<{ id: string }>('POST', repos, { name: 'apt-keys', kind: 'DEB', codename: 'bookworm', component: 'main' });
    const rpm = await call<{ id: string }>('POST', repos, { name: 'rpm-keys', kind: 'RPM' });
    const debToken = (await call<{ token: string }>('POST', `/repos/${deb.id}/tokens`, { name: 'roll' })).token;
    const rpmToken = (await call<{ token: string }>('POST', `/repos/${rpm.id}/tokens`, { name: 'roll' })).token;
    const uploadBoth = async (version: string) => {
      const debFile = await buildDeb({ name: 'packyard-rolled', version: `${version}-1`, arch: 'all' }, work);
      const rpmFile = await buildRpm({ name: 'packyard-rolled', version, release: '1', arch: 'noarch' }, work);
      expect((await upload(packyard, session, `${repos}/${deb.id}`, { name: 'p.deb', bytes: await readFile(debFile) }, 'debian/bookworm')).status).toBe(201);
      expect((await upload(packyard, session, `${repos}/${rpm.id}`, { name: 'p.rpm', bytes: await readFile(rpmFile) }, 'el/9')).status).toBe(201);
    };
    await uploadBoth('1.0');
    const [oldDebKey] = await call<KeyInfo[]>('GET', `/repos/${deb.id}/keys`);
    const [oldRpmKey] = await call<KeyInfo[]>('GET', `/repos/${rpm.id}/keys`);
    expect(oldDebKey).toMatchObject({ status: 'current', signsUntil: null });
    expect(Date.parse(oldDebKey.expiresAt!)).toBeGreaterThan(Date.now() + 700 * 86_400_000);

    // clients set up as the instructions say, holding only the old key
    const debSnippets = await call<Snippets>('GET', `/repos/${deb.id}/snippets?codename=bookworm&component=main&token=${debToken}`);
    debianRoot = await freshDebianRoot();
    const setup = await runInRoot(debianRoot, `set -e\n${debSnippets.apt}\napt-get install -y packyard-rolled`);
    expect(setup.code).toBe(0);
    const rpmSnippets = await call<Snippets>('GET', `/repos/${rpm.id}/snippets`);
    rpmRoot = await dnfRoot({ id: 'rpm-keys', baseUrl: `${rpmSnippets.repositoryUrl}/el/9`, publicKeyUrl: rpmSnippets.publicKeyUrl, token: rpmToken });
    const dnfInstall = await dnf(rpmRoot, ['install', 'packyard-rolled']);
    expect(dnfInstall.code).toBe(0);

    // the roll: both keys sign every index as soon as it is published again
    const rolled = await call<KeyInfo>('POST', `/repos/${deb.id}/keys/roll`, { overlapSeconds: OVERLAP_SECONDS }, [201]);
    await call<KeyInfo>('POST', `/repos/${rpm.id}/keys/roll`, { overlapSeconds: OVERLAP_SECONDS }, [201]);
    expect(rolled.status).toBe('current');
    expect(rolled.fingerprint).not.toBe(oldDebKey.fingerprint);
    const keys = await call<KeyInfo[]>('GET', `/repos/${deb.id}/keys`);
    expect(keys.map((key) => [key.fingerprint, key.status])).toEqual([[rolled.fingerprint, 'current'], [oldDebKey.fingerprint, 'previous']]);
    expect(Date.parse(keys[1].signsUntil!)).toBeGreaterThan(Date.now());
    const both = [rolled.fingerprint, oldDebKey.fingerprint].sort();
    expect(await waitFor('InRelease signed by both keys', async () => {
      const signers = await inReleaseSigners(debSnippets.repositoryUrl, debToken);
      return signers.length === 2 ? signers : undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 })).toEqual(both);
    // both keys are served at the key URLs, for the keyring the instructions fetch
    const armored = await (await fetch(debSnippets.publicKeyUrl)).text();
    expect(armored.match(/BEGIN PGP PUBLIC KEY BLOCK/g)).toHaveLength(2);

    // a new version, its .rpm signed with the new key; the old clients update and install it
    await uploadBoth('2.0');
    const aptUpdate = await runInRoot(debianRoot, 'apt-get update');
    expect(aptUpdate.stdout + aptUpdate.stderr).not.toMatch(/^(W|E):/m);
    expect(aptUpdate.code).toBe(0);
    expect((await runInRoot(debianRoot, 'apt-get install -y packyard-rolled')).code).toBe(0);
    expect((await runInRoot(debianRoot, "dpkg-query -W -f '${Version}' packyard-rolled")).stdout).toBe('2.0-1');
    const dnfUpgrade = await dnf(rpmRoot, ['--refresh', 'upgrade', 'packyard-rolled']);
    expect(dnfUpgrade.stderr).not.toMatch(/GPG check FAILED|signature.*(bad|not ok)/i);
    expect(dnfUpgrade.code).toBe(0);
    expect((await runCommand('rpm', ['--root', rpmRoot.path, '-q', '--qf', '%{VERSION}', 'packyard-rolled'])).stdout).toBe('2.0');

    // after the overlap only the new key signs; clients refresh the keyring as the key tab says
    expect(await waitFor('InRelease signed by the new key alone', async () => {
      const signers = await inReleaseSigners(debSnippets.repositoryUrl, debToken);
      return signers.length === 1 ? signers : undefined;
    }, { timeoutMs: (OVERLAP_SECONDS + 60) * 1000, intervalMs: 500 })).toEqual([rolled.fingerprint]);
    expect((await call<KeyInfo[]>('GET', `/repos/${deb.id}/keys`)).map((key) => key.status)).toEqual(['current', 'retired']);
    const refreshed = await runInRoot(debianRoot, `set -e\n${debSnippets.apt}`);
    expect(refreshed.stdout + refreshed.stderr).not.toMatch(/^(W|E):/m);
    expect(refreshed.code).toBe(0);
    const dnfRefresh = await dnf(rpmRoot, ['makecache', '--refresh']);
    expect(dnfRefresh.code).toBe(0);
    // dnf took the new key from gpgkey= when the package signed with it arrived; it still holds the old one
    const imported = (await runCommand('rpm', ['--root', rpmRoot.path, '-q', 'gpg-pubkey'])).stdout.trim().split('\n');
    expect(imported).toHaveLength(2);
    expect(imported.some((name) => name.startsWith(`gpg-pubkey-${oldRpmKey.fingerprint.slice(-8).toLowerCase()}-`))).toBe(true);
  }, 400_000);

  it('refuses a second roll during an overlap with 409, and a roll of someone else’s repository with 404', async () => {
    const workspace = await call<{ id: string }>('POST', '/workspaces', { name: 'Keys two', slug: 'keys-two', description: '' });
    const repository = await call<{ id: string }>('POST', `/workspaces/${workspace.id}/repos`, { name: 'twice', kind: 'DEB', codename: 'bookworm', component: 'main' });
    // the repository's first key is generated right after it is made (seconds of RSA work)
    await waitFor('the first key', async () => ((await session.call('GET', `/repos/${repository.id}/keys`)).status === 200 ? true : undefined));
    await call('POST', `/repos/${repository.id}/keys/roll`, { overlapSeconds: 3600 }, [201]);
    const again = await session.call('POST', `/repos/${repository.id}/keys/roll`, {});
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already being rolled/);
    const stranger = await registerUser(packyard);
    expect((await stranger.call('POST', `/repos/${repository.id}/keys/roll`, {})).status).toBe(404);
    expect((await stranger.call('GET', `/repos/${repository.id}/keys`)).status).toBe(404);
    expect((await session.call('POST', `/repos/${repository.id}/keys/roll`, { overlapSeconds: 91 * 86_400 })).status).toBe(400);
  }, 120_000);
});
