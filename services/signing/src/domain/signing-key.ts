import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import * as openpgp from 'openpgp';

const signOnThreadPool = promisify(sign);

/** the hash algorithms Packyard signs with, by their OpenPGP ids (RFC 4880 §9.4) */
const HASH_IDS = { sha256: 8, sha512: 10 } as const;
/** RFC 4880 §9.1 */
const RSA = 1;
/** RFC 4880 §5.2.1: a signature of a binary document, or of a canonical text document (CRLF line endings) */
const SIGNATURE_TYPES = { binary: 0x00, text: 0x01 } as const;
/** RFC 4880 §5.2.3.1, RFC 9580 §5.2.3.35; the critical bit (0x80) is set on the creation time, as openpgp.js sets it */
const SUBPACKET = { creationTime: 0x80 | 2, issuerKeyId: 16, issuerFingerprint: 33 } as const;
/** RFC 4880 §4.3 */
const SIGNATURE_PACKET_TAG = 2;

export interface SignatureOptions {
  type: keyof typeof SIGNATURE_TYPES;
  hash: keyof typeof HASH_IDS;
  /** the signature's creation time (whole seconds); defaults to now */
  date?: Date;
}

/**
 * A repository's RSA key made ready to sign. It writes the version 4 signature packets
 * openpgp.js writes (the same bytes for the same key, data, date and subpackets: creation
 * time, issuer key id, issuer fingerprint, all hashed) and has node sign on libuv's thread
 * pool with the key imported once. openpgp.js imports the key again for every signature
 * and checks the key's self-signature first: about 2 ms of the event loop's time on top of
 * the 4 ms an RSA-4096 signature takes, on every publish and every uploaded .rpm. The
 * key is checked once here instead (`of`). No salt notation is added: it guards
 * deterministic EdDSA against fault attacks, and PKCS#1 v1.5 signatures are not EdDSA
 * (gpg writes none either).
 */
export class SigningKey {
  private constructor(
    private readonly secret: KeyObject,
    /** the signing key packet's v4 fingerprint (20 bytes) */
    private readonly fingerprint: Buffer,
  ) {}

  /** the key that signs for `key` (its primary key, or a signing subkey), checked valid at `date` */
  static async of(key: openpgp.PrivateKey, date = new Date()): Promise<SigningKey> {
    const signing = await key.getSigningKey(undefined, date);
    const packet = signing.keyPacket as openpgp.SecretKeyPacket & {
      publicParams: { n: Uint8Array; e: Uint8Array };
      privateParams?: { d: Uint8Array; p: Uint8Array; q: Uint8Array; u: Uint8Array };
    };
    const { algorithm } = signing.getAlgorithmInfo();
    if (packet.version !== 4 || (algorithm !== 'rsaSign' && algorithm !== 'rsaEncryptSign') || !packet.privateParams) {
      throw new Error(`Only unlocked version 4 RSA keys sign here, not a version ${packet.version} ${algorithm} key`);
    }
    return new SigningKey(createPrivateKey({ key: rsaJwk(packet.publicParams, packet.privateParams), format: 'jwk' }), Buffer.from(packet.getFingerprintBytes()!));
  }

  /** one signature packet over `data`, as it appears in a detached signature */
  async sign(data: Uint8Array, { type, hash, date = new Date() }: SignatureOptions): Promise<Buffer> {
    const hashed = Buffer.concat([
      subpacket(SUBPACKET.creationTime, uint32(Math.floor(date.getTime() / 1000))),
      // a v4 key id is the fingerprint's last 8 bytes
      subpacket(SUBPACKET.issuerKeyId, this.fingerprint.subarray(12)),
      subpacket(SUBPACKET.issuerFingerprint, Buffer.concat([Buffer.of(4), this.fingerprint])),
    ]);
    const head = Buffer.concat([Buffer.of(4, SIGNATURE_TYPES[type], RSA, HASH_IDS[hash]), uint16(hashed.length), hashed]);
    // RFC 4880 §5.2.4: the data, the hashed part of the packet, then a trailer that counts it
    const signed = Buffer.concat([data, head, Buffer.of(4, 0xff), uint32(head.length)]);
    const signature = await signOnThreadPool(hash, signed, this.secret);
    // the packet repeats the digest's first two bytes, a quick check for a verifier
    const digest = createHash(hash).update(signed).digest();
    const body = Buffer.concat([head, uint16(0), digest.subarray(0, 2), mpi(signature)]);
    return Buffer.concat([Buffer.of(0xc0 | SIGNATURE_PACKET_TAG), newFormatLength(body.length), body]);
  }
}

/** the key as a JWK, as openpgp.js makes it: OpenPGP has p < q and u = p⁻¹ mod q, so they swap and u is the JWK's qi */
function rsaJwk(pub: { n: Uint8Array; e: Uint8Array }, secret: { d: Uint8Array; p: Uint8Array; q: Uint8Array; u: Uint8Array }) {
  const d = bigInt(secret.d);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
  return {
    kty: 'RSA',
    n: b64(pub.n),
    e: b64(pub.e),
    d: b64(secret.d),
    p: b64(secret.q),
    q: b64(secret.p),
    dp: b64(bytesOf(d % (bigInt(secret.q) - 1n))),
    dq: b64(bytesOf(d % (bigInt(secret.p) - 1n))),
    qi: b64(secret.u),
  };
}

const bigInt = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);

function bytesOf(value: bigint): Buffer {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

const uint16 = (value: number) => Buffer.of(value >>> 8, value & 0xff);

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** RFC 4880 §5.2.3.1; every subpacket here is shorter than 192 bytes (a one-octet length) */
const subpacket = (type: number, data: Buffer) => Buffer.concat([Buffer.of(data.length + 1, type), data]);

/** RFC 4880 §3.2: the bit count, then the value without leading zero bytes */
function mpi(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const bytes = value.subarray(start);
  return Buffer.concat([uint16((bytes.length - 1) * 8 + (32 - Math.clz32(bytes[0]))), bytes]);
}

/** RFC 4880 §4.2.2 */
function newFormatLength(length: number): Buffer {
  if (length < 192) return Buffer.of(length);
  if (length < 8384) return Buffer.of(((length - 192) >> 8) + 192, (length - 192) & 0xff);
  return Buffer.concat([Buffer.of(0xff), uint32(length)]);
}
