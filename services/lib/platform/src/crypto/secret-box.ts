import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const MASTER_KEY_BYTES = 32;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export interface SecretBox {
  /**
   * Encrypts with AES-256-GCM under a fresh random nonce: `v1.<base64url(nonce|ciphertext|tag)>`.
   * `context` (say, the token's id) is authenticated, not stored: a sealed value copied
   * to another record will not open there.
   */
  seal(plaintext: string | Buffer, context?: string): string;
  /** throws `SecretBoxError` when the value was altered, sealed under another key or context, or is not a sealed value */
  open(sealed: string, context?: string): Buffer;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`The master key must be ${MASTER_KEY_BYTES} bytes, not ${masterKey.length}`);
  const key = Buffer.from(masterKey);
  return {
    seal(plaintext, context = '') {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce).setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return `${VERSION}.${Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(sealed, context = '') {
      const [version, payload, ...rest] = sealed.split('.');
      if (version !== VERSION || payload === undefined || rest.length > 0) throw new SecretBoxError('Not a sealed value of a known version');
      const bytes = Buffer.from(payload, 'base64url');
      if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new SecretBoxError('Sealed value is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES))
        .setAAD(Buffer.from(context))
        .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new SecretBoxError('Sealed value does not authenticate under this key');
      }
    },
  };
}
