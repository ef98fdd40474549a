import type { SigningKey } from './signing-key';

/**
 * The OpenPGP signature packet rpm stores as RPMSIGTAG_RSA: a binary-document signature
 * (class 0x00) over the main header bytes, from magic to the end of its data store, with
 * SHA-256, rpm's own default (`%_gpg_digest_algo sha256`), which every rpm since EL6 verifies.
 */
export function signRpmHeader(header: Uint8Array, key: SigningKey, options: { date?: Date } = {}): Promise<Uint8Array> {
  return key.sign(header, { type: 'binary', hash: 'sha256', date: options.date });
}
