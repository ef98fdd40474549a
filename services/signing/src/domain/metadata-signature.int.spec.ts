import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicKeyFiles } from '@packyard/formats';
import { clearsign, detachSign, generateRepositoryKey, readSigningKey, type GeneratedRepositoryKey, type SigningKey } from './index';

// The verifiers are the real ones clients run: gpgv with a binary keyring (what apt does
// with signed-by=) and gpg --verify on repomd.xml.asc (what dnf and zypper do).

const run = promisify(execFile);

/** Whether the verifier exits 0, i.e. accepts the signature. */
async function verifies(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    await run(program, args, { env });
    return true;
  } catch {
    return false;
  }
}

const release = [
  'Origin: acme',
  'Label: tools',
  'Suite: bookworm',
  'Codename: bookworm',
  'Date: Sat, 01 Jun 2024 00:00:00 UTC',
  'Architectures: amd64',
  'Components: main',
  'SHA256:',
  ...Array.from({ length: 24 }, (_, i) => ` ${'ab'.repeat(32)} ${1000 + i} main/binary-amd64/Packages-${i}`),
  '-- a line that needs dash-escaping',
  '',
].join('\n');

describe('repository metadata signatures', () => {
  let dir: string;
  let generated: GeneratedRepositoryKey;
  let key: SigningKey;
  let keyring: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-signing-'));
    generated = await generateRepositoryKey({ name: 'Packyard acme/tools', email: 'signing@packyard.invalid' });
    key = await readSigningKey(generated.privateKeyArmored);
    keyring = join(dir, 'tools.gpg');
    await writeFile(keyring, (await publicKeyFiles([generated.publicKeyArmored])).binary);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('describes the key as gpg does: RSA-4096 with a 40-digit fingerprint ending in the key id', async () => {
    expect(generated.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    expect(generated.fingerprint.endsWith(generated.keyId)).toBe(true);
    const { stdout } = await run('gpg', ['--show-keys', '--with-colons', keyring], { env: { ...process.env, GNUPGHOME: dir } });
    const publicKeyRecord = stdout.split('\n').find((line) => line.startsWith('pub:'))!.split(':');
    expect(publicKeyRecord[2]).toBe('4096');
    expect(publicKeyRecord[3]).toBe('1'); // RSA
    expect(stdout).toContain(`fpr:::::::::${generated.fingerprint}:`);
  });

  it('produces InRelease and Release.gpg for the same bytes that gpgv accepts with the binary keyring', async () => {
    const inRelease = await clearsign(release, [key]);
    await writeFile(join(dir, 'InRelease'), inRelease);
    await writeFile(join(dir, 'Release'), release);
    await writeFile(join(dir, 'Release.gpg'), await detachSign(new TextEncoder().encode(release), [key], { armor: false }));

    expect(inRelease).toMatch(/^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nOrigin: acme\n/);
    expect(inRelease).not.toContain('\r');
    expect(await verifies('gpgv', ['--keyring', keyring, join(dir, 'InRelease')])).toBe(true);
    expect(await verifies('gpgv', ['--keyring', keyring, join(dir, 'Release.gpg'), join(dir, 'Release')])).toBe(true);

    // What gpgv says was signed is the Release text itself (gpg reports text signatures with CRLF).
    await run('gpgv', ['--keyring', keyring, '--output', join(dir, 'signed-text'), join(dir, 'InRelease')]);
    const signedText = await readFile(join(dir, 'signed-text'), 'utf8');
    expect(signedText.replaceAll('\r\n', '\n')).toBe(release);
  });

  it('rejects InRelease and Release whose content changed by one byte', async () => {
    const inRelease = await clearsign(release, [key]);
    await writeFile(join(dir, 'InRelease.tampered'), inRelease.replace('Suite: bookworm', 'Suite: bookwork'));
    await writeFile(join(dir, 'Release.tampered'), release.replace('1000', '1001'));
    await writeFile(join(dir, 'Release.gpg'), await detachSign(new TextEncoder().encode(release), [key], { armor: false }));

    expect(await verifies('gpgv', ['--keyring', keyring, join(dir, 'InRelease.tampered')])).toBe(false);
    expect(await verifies('gpgv', ['--keyring', keyring, join(dir, 'Release.gpg'), join(dir, 'Release.tampered')])).toBe(false);
  });

  it('signs repomd.xml in binary mode so gpg --verify accepts the armored signature and refuses a changed byte', async () => {
    const gnupgHome = await mkdtemp(join(tmpdir(), 'packyard-gnupg-'));
    const env = { ...process.env, GNUPGHOME: gnupgHome };
    try {
      // CRLF and trailing spaces must survive: a text-mode signature would not cover them.
      const repomd = new TextEncoder().encode('<?xml version="1.0" encoding="UTF-8"?>\r\n<repomd>  \n<revision>1</revision>\n</repomd>\n');
      await writeFile(join(dir, 'repomd.xml'), repomd);
      await writeFile(join(dir, 'repomd.xml.asc'), await detachSign(repomd, [key], { armor: true }));
      await writeFile(join(dir, 'public.asc'), generated.publicKeyArmored);
      await run('gpg', ['--batch', '--import', join(dir, 'public.asc')], { env });

      expect(await verifies('gpg', ['--batch', '--verify', join(dir, 'repomd.xml.asc'), join(dir, 'repomd.xml')], env)).toBe(true);

      const tampered = Buffer.from(repomd);
      tampered[tampered.indexOf('1</revision>')] = '2'.charCodeAt(0);
      await writeFile(join(dir, 'repomd.xml'), tampered);
      expect(await verifies('gpg', ['--batch', '--verify', join(dir, 'repomd.xml.asc'), join(dir, 'repomd.xml')], env)).toBe(false);
    } finally {
      await rm(gnupgHome, { recursive: true, force: true });
    }
  });

  it('signs a 2 KB Release quickly enough to do on every publish with a cached key', async () => {
    const twoKilobytes = release.padEnd(2048, '#');
    await clearsign(twoKilobytes, [key]); // warm-up
    const started = performance.now();
    const rounds = 10;
    for (let i = 0; i < rounds; i++) await clearsign(twoKilobytes, [key]);
    const perSignatureMs = (performance.now() - started) / rounds;
    console.info(`clearsign of 2 KB Release: ${perSignatureMs.toFixed(1)} ms`);
    expect(perSignatureMs).toBeLessThan(250);
  });
});
