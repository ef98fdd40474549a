import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, newTotpSecret, otpauthUri, totpCode } from './totp';

// RFC 6238 appendix B's SHA-1 key
const RFC_KEY = Buffer.from('12345678901234567890', 'ascii');
const RFC_SECRET = base32Encode(RFC_KEY);

describe('TOTP (RFC 6238)', () => {
  it("gives RFC 6238's SHA-1 test values (8 digits) and RFC 4226's HOTP values", () => {
    const at = (seconds: number) => hotp(RFC_KEY, Math.floor(seconds / 30), 8);
    expect([59, 1111111109, 1111111111, 1234567890, 2000000000, 20000000000].map(at)).toEqual(['94287082', '07081804', '14050471', '89005924', '69279037', '65353130']);
    expect([0, 1, 2, 9].map((counter) => hotp(RFC_KEY, counter))).toEqual(['755224', '287082', '359152', '520489']);
  });

  it('round-trips base32 (RFC 4648) and makes 160-bit secrets', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('mzxw 6ytb-oi').toString()).toBe('foobar');
    expect(RFC_SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode(newTotpSecret())).toHaveLength(20);
    expect(newTotpSecret()).not.toBe(newTotpSecret());
  });

  it('accepts the current code and one step of drift either way, nothing further, and only six digits', () => {
    const now = 1_700_000_000_000;
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, now), now)).toBe(Math.floor(now / 30_000));
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, now - 30_000), now)).toBe(Math.floor(now / 30_000) - 1);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, now + 30_000), now)).toBe(Math.floor(now / 30_000) + 1);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, now - 90_000), now)).toBeUndefined();
    expect(matchTotp(RFC_SECRET, '12345', now)).toBeUndefined();
    expect(matchTotp(RFC_SECRET, 'abcdef', now)).toBeUndefined();
  });

  it('writes the otpauth URI authenticator apps scan', () => {
    expect(otpauthUri('Packyard', 'ada@example.com', RFC_SECRET)).toBe(
      'otpauth://totp/Packyard:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Packyard&algorithm=SHA1&digits=6&period=30',
    );
  });
});
