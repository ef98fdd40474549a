import * as openpgp from 'openpgp';
import { SIGNING_CONFIG } from './repository-key';

// Signatures over repository metadata. The index writers produce bytes; these functions only
// sign them, so InRelease, Release.gpg and repomd.xml.asc always cover exactly the bytes that
// are published. While a repository rolls its key both keys sign: one signature packet each,
// and apt, gpgv and dnf accept the document when any one of them is by a key they trust.

export interface SigningOptions {
  /** Signature creation time; defaults to now. */
  date?: Date;
}

/**
 * A clearsigned document (apt's InRelease) embedding `text`, laid out exactly as
 * `gpg --clearsign` would. openpgp.js's own armor writes the body with CRLF line endings,
 * which would leak a `\r` into every field apt reads from InRelease, so the document is
 * assembled here with LF and only the signature is taken from openpgp.js. The final line
 * break of `text` belongs to the framing, as with gpg, so `text` round-trips unchanged.
 */
export async function clearsign(text: string, key: openpgp.PrivateKey | openpgp.PrivateKey[], options: SigningOptions = {}): Promise<string> {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const message = await openpgp.createCleartextMessage({ text: body });
  const signed = await openpgp.sign({ message, signingKeys: key, date: options.date, format: 'object', config: SIGNING_CONFIG });
  // openpgp's typings leave out the signature a signed CleartextMessage carries
  const { signature } = signed as unknown as { signature: openpgp.Signature };
  const hashNames = signature.packets.map((packet) => openpgp.enums.read(openpgp.enums.hash, packet.hashAlgorithm!).toUpperCase());
  return [
    '-----BEGIN PGP SIGNED MESSAGE-----\n',
    `Hash: ${[...new Set(hashNames)].join(',')}\n\n`,
    // RFC 4880 §7.1 dash-escaping: a body line starting with '-' must not look like armor.
    body.replace(/^-/gm, '- -'),
    '\n',
    signature.armor(),
  ].join('');
}

/**
 * A detached signature over `bytes` in binary mode (no line-ending canonicalisation):
 * binary for apt's Release.gpg, armored for repomd.xml.asc.
 */
export async function detachSign(bytes: Uint8Array, key: openpgp.PrivateKey | openpgp.PrivateKey[], options: SigningOptions & { armor: true }): Promise<string>;
export async function detachSign(bytes: Uint8Array, key: openpgp.PrivateKey | openpgp.PrivateKey[], options: SigningOptions & { armor: false }): Promise<Uint8Array>;
export async function detachSign(
  bytes: Uint8Array,
  key: openpgp.PrivateKey | openpgp.PrivateKey[],
  options: SigningOptions & { armor: boolean },
): Promise<string | Uint8Array> {
  const message = await openpgp.createMessage({ binary: bytes });
  const common = { message, signingKeys: key, detached: true, date: options.date, config: SIGNING_CONFIG } as const;
  return options.armor ? openpgp.sign({ ...common, format: 'armored' }) : openpgp.sign({ ...common, format: 'binary' });
}
