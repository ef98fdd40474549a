import { generateKey } from 'openpgp';
import { describe, expect, it } from 'vitest';
import { PublicKeys } from './public-keys';

// curve25519Legacy: generated in milliseconds, and read like the repositories' RSA keys
const armoredKey = async (name: string) =>
  (await generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name }], format: 'object' })).publicKey;

describe('PublicKeys', () => {
  it('serves the keys signing announced (the read model) as gpg.key and keyring.gpg, without asking signing', async () => {
    const [newest, oldest] = await Promise.all([armoredKey('new'), armoredKey('old')]);
    const asked: string[] = [];
    const keys = new PublicKeys(
      async () => [newest.armor(), oldest.armor()],
      async (id) => {
        asked.push(id);
        throw new Error('signing is down');
      },
    );
    const files = await keys.get('r1');
    expect(files.armored.body!.toString('utf8').match(/BEGIN PGP PUBLIC KEY BLOCK/g)).toHaveLength(2);
    expect(files.keyring.body!.equals(Buffer.concat([newest.write(), oldest.write()]))).toBe(true);
    expect(files.keyring.headers).toContain('application/pgp-keys');
    expect(asked).toEqual([]);
  });

  it('asks signing only for a repository the read model has no keys for, and asks again after a failure', async () => {
    let signingUp = false;
    const keys = new PublicKeys(
      async () => undefined,
      async () => {
        if (!signingUp) throw new Error('signing is down');
        return { armored: 'ARMORED\n', binary: Buffer.from([0x99]) };
      },
    );
    await expect(keys.get('r1')).rejects.toThrow(/signing is down/);
    signingUp = true;
    expect((await keys.get('r1')).armored.body!.toString('utf8')).toBe('ARMORED\n');
  });

  it('reads the keys again once they changed', async () => {
    const [first, second] = await Promise.all([armoredKey('first'), armoredKey('second')]);
    let announced = [first.armor()];
    const keys = new PublicKeys(async () => announced, async () => Promise.reject(new Error('not asked')));
    expect((await keys.get('r1')).keyring.body!.equals(Buffer.from(first.write()))).toBe(true);
    announced = [second.armor(), first.armor()];
    expect((await keys.get('r1')).keyring.body!.equals(Buffer.from(first.write()))).toBe(true);
    keys.forget('r1');
    expect((await keys.get('r1')).keyring.body!.equals(Buffer.concat([second.write(), first.write()]))).toBe(true);
  });
});
