import * as openpgp from 'openpgp';
import { SigningKey } from './signing-key';

// Every repository has its own signing key. RSA-4096 is the default on purpose: EL7's gpg
// cannot verify Ed25519 at all, and RFC 9580 (v6) Ed25519 keys are rejected by gpgv and
// apt 2.6; RSA-4096 verifies everywhere apt, dnf, yum and zypper run. The price is time:
// generating one takes 3–7 s here, so callers generate once and keep the key.

/** SHA-512 for the key's self-signatures (its data signatures too: metadata-signature.ts): no client we target lacks it. */
const SIGNING_CONFIG: openpgp.PartialConfig = { preferredHashAlgorithm: openpgp.enums.hash.sha512 };

export interface RepositoryKeyIdentity {
  name: string;
  email: string;
}

export interface GeneratedRepositoryKey {
  publicKeyArmored: string;
  /** Unencrypted: the caller encrypts it with the master key before storing it. */
  privateKeyArmored: string;
  /** 40 upper-case hex digits, as `gpg --fingerprint` prints them without spaces. */
  fingerprint: string;
  /** The last 16 hex digits of the fingerprint, upper case. */
  keyId: string;
}

export async function generateRepositoryKey(identity: RepositoryKeyIdentity, options: { date?: Date } = {}): Promise<GeneratedRepositoryKey> {
  // A signing-only key: without the default encryption subkey generation is twice as
  // fast, and nobody ever encrypts to a repository.
  const { privateKey, publicKey } = await openpgp.generateKey({
    type: 'rsa',
    rsaBits: 4096,
    userIDs: [identity],
    subkeys: [],
    date: options.date,
    format: 'object',
    config: SIGNING_CONFIG,
  });
  return {
    publicKeyArmored: publicKey.armor(),
    privateKeyArmored: privateKey.armor(),
    fingerprint: publicKey.getFingerprint().toUpperCase(),
    keyId: publicKey.getKeyID().toHex().toUpperCase(),
  };
}

/** Parses an unencrypted armored private key (the caller has already decrypted it at rest), ready to sign. */
export async function readSigningKey(armored: string): Promise<SigningKey> {
  return SigningKey.of(await openpgp.readPrivateKey({ armoredKey: armored }));
}
