import * as openpgp from 'openpgp';
import { beforeAll, describe, expect, it } from 'vitest';
import { clearsign, detachSign, signRpmHeader, SigningKey } from './index';

// SigningKey writes its signature packets itself: the reference is openpgp.js, which signed
// before it, over the same key, data and date. PKCS#1 v1.5 is deterministic, so the same
// subpackets give the same bytes (openpgp.js's salt notation turned off: SigningKey adds none).
// The verifiers clients run (gpgv, gpg, rpm) check these signatures in the other suites here.

const NO_SALT = { nonDeterministicSignaturesViaNotation: false } as const;
const date = new Date('2026-06-01T12:00:00Z');

describe('signature packets written by SigningKey', () => {
  let first: openpgp.PrivateKey;
  let second: openpgp.PrivateKey;
  let keys: SigningKey[];

  beforeAll(async () => {
    // 2048 bits: the packets do not depend on the size, and the keys are made in a second
    const made = await Promise.all(
      ['first', 'second'].map((name) => openpgp.generateKey({ type: 'rsa', rsaBits: 2048, userIDs: [{ name }], subkeys: [], date: new Date('2026-01-01T00:00:00Z'), format: 'object' })),
    );
    [first, second] = made.map((pair) => pair.privateKey);
    keys = await Promise.all([first, second].map((key) => SigningKey.of(key, date)));
  }, 60_000);

  const openpgpDetached = async (data: Uint8Array, signingKeys: openpgp.PrivateKey[], hash: number) =>
    Buffer.from(await openpgp.sign({ message: await openpgp.createMessage({ binary: data }), signingKeys, detached: true, format: 'binary', date, config: { ...NO_SALT, preferredHashAlgorithm: hash } }));

  it('signs an rpm header with the bytes openpgp.js wrote (SHA-256, binary)', async () => {
    const header = Buffer.from('8eade80100000000'.repeat(40), 'hex');
    expect(Buffer.from(await signRpmHeader(header, keys[0], { date }))).toEqual(await openpgpDetached(header, [first], openpgp.enums.hash.sha256));
  });

  it('signs metadata with both keys of a roll as openpgp.js did: one packet each, in their order, binary and armored', async () => {
    const repomd = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\r\n<repomd>  \n<revision>1</revision>\n</repomd>\n');
    const reference = await openpgpDetached(repomd, [first, second], openpgp.enums.hash.sha512);
    expect(Buffer.from(await detachSign(repomd, keys, { armor: false, date }))).toEqual(reference);
    const armoredReference = await openpgp.sign({ message: await openpgp.createMessage({ binary: repomd }), signingKeys: [first, second], detached: true, date, config: { ...NO_SALT, preferredHashAlgorithm: openpgp.enums.hash.sha512 } });
    expect(await detachSign(repomd, keys, { armor: true, date })).toBe(armoredReference);
  });

  it('clearsigns the canonical text openpgp.js signed: trailing blanks dropped, CRLF line endings', async () => {
    const release = 'Origin: acme  \nLabel: tools\t\n-- dashed\nSHA256:\n abc 1 main/Packages\n';
    const signed = await clearsign(release, keys, { date });
    const reference = await openpgp.sign({
      message: await openpgp.createCleartextMessage({ text: release.slice(0, -1) }),
      signingKeys: [first, second],
      date,
      format: 'object',
      config: { ...NO_SALT, preferredHashAlgorithm: openpgp.enums.hash.sha512 },
    });
    const referenceSignature = (reference as unknown as { signature: openpgp.Signature }).signature.armor();
    expect(signed.slice(signed.indexOf('-----BEGIN PGP SIGNATURE-----'))).toBe(referenceSignature);
    // and openpgp.js reads it back as signed by both keys
    const read = await openpgp.readCleartextMessage({ cleartextMessage: signed });
    const verified = await openpgp.verify({ message: read, verificationKeys: [first.toPublic(), second.toPublic()], date, expectSigned: true });
    expect(verified.signatures).toHaveLength(2);
  });

  it('refuses a key that cannot sign at the given time rather than writing a signature nobody accepts', async () => {
    await expect(SigningKey.of(first, new Date('2025-01-01T00:00:00Z'))).rejects.toThrow();
  });
});
