import * as openpgp from 'openpgp';
import type { SigningKey } from './signing-key';

// Signatures over repository metadata. The index writers produce bytes; these functions only
// sign them, so InRelease, Release.gpg and repomd.xml.asc always cover exactly the bytes that
// are published. While a repository rolls its key both keys sign: one signature packet each,
// and apt, gpgv and dnf accept the document when any one of them is by a key they trust.

/** SHA-512 for every data signature: no client we target lacks it */
const METADATA_HASH = 'sha512';

export interface SigningOptions {
  /** Signature creation time; defaults to now. */
  date?: Date;
}

/**
 * A clearsigned document (apt's InRelease) embedding `text`, laid out exactly as
 * `gpg --clearsign` would: LF line endings in the document, the signature over its
 * canonical text (RFC 4880 §7.1: trailing blanks removed, CRLF line endings). The final
 * line break of `text` belongs to the framing, as with gpg, so `text` round-trips unchanged.
 */
export async function clearsign(text: string, keys: readonly SigningKey[], options: SigningOptions = {}): Promise<string> {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const canonical = Buffer.from(
    body
      .split('\n')
      .map((line) => line.replace(/[ \t\r]+$/, ''))
      .join('\r\n'),
    'utf8',
  );
  return [
    '-----BEGIN PGP SIGNED MESSAGE-----\n',
    `Hash: ${METADATA_HASH.toUpperCase()}\n\n`,
    // RFC 4880 §7.1 dash-escaping: a body line starting with '-' must not look like armor.
    body.replace(/^-/gm, '- -'),
    '\n',
    armored(await signatures(canonical, keys, 'text', options)),
  ].join('');
}

/**
 * A detached signature over `bytes` in binary mode (no line-ending canonicalisation):
 * binary for apt's Release.gpg, armored for repomd.xml.asc.
 */
export async function detachSign(bytes: Uint8Array, keys: readonly SigningKey[], options: SigningOptions & { armor: true }): Promise<string>;
export async function detachSign(bytes: Uint8Array, keys: readonly SigningKey[], options: SigningOptions & { armor: false }): Promise<Uint8Array>;
export async function detachSign(bytes: Uint8Array, keys: readonly SigningKey[], options: SigningOptions & { armor: boolean }): Promise<string | Uint8Array> {
  const packets = await signatures(bytes, keys, 'binary', options);
  return options.armor ? armored(packets) : packets;
}

/** one signature packet per key, in the keys' order */
async function signatures(data: Uint8Array, keys: readonly SigningKey[], type: 'binary' | 'text', { date = new Date() }: SigningOptions): Promise<Buffer> {
  return Buffer.concat(await Promise.all(keys.map((key) => key.sign(data, { type, hash: METADATA_HASH, date }))));
}

/** as openpgp.js armors a version 4 signature: with the CRC-24 line gpg expects */
const armored = (packets: Uint8Array) => openpgp.armor(openpgp.enums.armor.signature, packets, undefined, undefined, undefined, true);
