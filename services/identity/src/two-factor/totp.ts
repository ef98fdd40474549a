import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) as authenticator apps
 * make them: HMAC-SHA1, 30-second steps, 6 digits, a 160-bit secret written in base32
 * (RFC 4648) in an otpauth:// URI.
 */
export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
const SECRET_BYTES = 20;
/** a code from the step before or after still counts: clocks drift and people type slowly */
const DRIFT_STEPS = 1;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text.toUpperCase().replace(/[\s=-]/g, '')) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

export const newTotpSecret = () => base32Encode(randomBytes(SECRET_BYTES));

/** the step a moment falls in (RFC 6238 T) */
export const totpStep = (atMs: number) => Math.floor(atMs / 1000 / TOTP_STEP_SECONDS);

/** RFC 4226 HOTP of `counter`, with dynamic truncation */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const totpCode = (base32Secret: string, atMs: number) => hotp(base32Decode(base32Secret), totpStep(atMs));

/** the step `code` belongs to within the allowed drift, or undefined when it matches none */
export function matchTotp(base32Secret: string, code: string, atMs: number): number | undefined {
  const typed = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(typed)) return undefined;
  const secret = base32Decode(base32Secret);
  const now = totpStep(atMs);
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(typed))) return step;
  }
  return undefined;
}

/** what authenticator apps scan: otpauth://totp/Issuer:account?secret=…&issuer=… */
export function otpauthUri(issuer: string, account: string, base32Secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret: base32Secret, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${query}`;
}
