import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRpm, signRpmHeaders } from '@packyard/formats';
import { buildRpm } from '@packyard/testing/packages/rpm.builder';
import { runChecked, runCommand } from '@packyard/testing/clients/run-command';
import { generateRepositoryKey, readSigningKey, signRpmHeader, type GeneratedRepositoryKey, type SigningKey } from './index';

// The verifier is rpm itself: `rpm -K` with the repository key imported into an rpm
// database, which is what dnf's gpgcheck=1 asks rpm to do for every package.

describe('rpm header signatures', () => {
  let dir: string;
  let generated: GeneratedRepositoryKey;
  let key: SigningKey;
  let trusting: string;
  let empty: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'packyard-rpmsign-'));
    generated = await generateRepositoryKey({ name: 'Packyard acme/tools', email: 'signing@packyard.invalid' });
    key = await readSigningKey(generated.privateKeyArmored);
    await writeFile(join(dir, 'key.asc'), generated.publicKeyArmored);
    trusting = join(dir, 'trusting-db');
    empty = join(dir, 'empty-db');
    for (const db of [trusting, empty]) await runChecked('rpm', ['--dbpath', db, '--initdb']);
    await runChecked('rpm', ['--dbpath', trusting, '--import', join(dir, 'key.asc')]);
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** the file as the artifact module stores it: new headers, then the rest of the original */
  async function signFile(path: string): Promise<string> {
    const original = await readFile(path);
    const { headerRange } = await parseRpm(createReadStream(path));
    const headers = await signRpmHeaders(original.subarray(0, headerRange.end), headerRange, (header) => signRpmHeader(header, key));
    const signed = join(dir, `signed-${path.split('/').pop()}`);
    await writeFile(signed, Buffer.concat([headers, original.subarray(headerRange.start)]));
    return signed;
  }

  const check = (db: string, file: string) => runCommand('rpm', ['--dbpath', db, '-Kv', file]);

  it('signs so that rpm -K accepts the package with the repository key and only with it', async () => {
    const built = await buildRpm({ name: 'packyard-signed', version: '1.0.0', release: '1', arch: 'noarch' }, dir);
    const signed = await signFile(built);

    const verified = await check(trusting, signed);
    expect(verified.stdout).toContain(`Header V4 RSA/SHA256 Signature, key ID ${generated.keyId.slice(-8).toLowerCase()}: OK`);
    expect(verified.stdout).toMatch(/Header SHA256 digest: OK/);
    expect(verified.stdout).toMatch(/Payload SHA256 digest: OK/);
    expect(verified.code).toBe(0);
    expect((await runCommand('rpm', ['--dbpath', trusting, '-K', signed])).stdout).toContain('digests signatures OK');

    const unknownKey = await check(empty, signed);
    expect(unknownKey.stdout).toContain('NOKEY');
    expect(unknownKey.code).not.toBe(0);
    // the reserved space of rpmbuild's signature header gave the signature its room
    expect((await stat(signed)).size).toBe((await stat(built)).size);
    expect((await parseRpm(createReadStream(signed))).name).toBe('packyard-signed');
  });

  it('a signature does not survive a changed header byte', async () => {
    const signed = await signFile(await buildRpm({ name: 'packyard-tampered', version: '1.0.0', release: '1', arch: 'noarch' }, dir));
    const bytes = await readFile(signed);
    const { headerRange } = await parseRpm(createReadStream(signed));
    const summary = bytes.indexOf('packyard-tampered test package', headerRange.start);
    bytes[summary] ^= 0x20;
    await writeFile(signed, bytes);
    const result = await check(trusting, signed);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/BAD/);
  });

  it("replaces the uploader's own signature, so a client trusting only the repository key verifies it", async () => {
    const gnupg = join(dir, 'gnupg');
    await runChecked('mkdir', ['-m', '700', '-p', gnupg]);
    const env = { ...process.env, GNUPGHOME: gnupg };
    await runChecked('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'Vendor <vendor@example.invalid>', 'rsa2048', 'sign', 'never'], { env });
    const vendorSigned = await buildRpm({ name: 'packyard-vendor', version: '1.0.0', release: '1', arch: 'noarch' }, dir);
    await runChecked('rpmsign', ['--define', '_gpg_name Vendor <vendor@example.invalid>', '--define', '__gpg /usr/bin/gpg', '--addsign', vendorSigned], { env });
    expect((await check(trusting, vendorSigned)).stdout).toContain('NOKEY');

    const signed = await signFile(vendorSigned);
    const verified = await check(trusting, signed);
    expect(verified.stdout).not.toContain('NOKEY');
    expect(verified.stdout.match(/Signature/g)).toHaveLength(1);
    expect(verified.code).toBe(0);
  });
});
