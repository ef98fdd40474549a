import { describe, expect, it } from 'vitest';
import { validateEmail, validateNewPassword } from './credentials';
import { hashPassword, verifyPassword } from './password-hasher';

describe('credentials', () => {
  it('normalises well-formed addresses and refuses others', () => {
    expect(validateEmail(' Ada@Example.COM ')).toBe('ada@example.com');
    expect(() => validateEmail('  ')).toThrow('Email is required');
    // full-width and other compatibility forms fold to the one address they look like
    expect(validateEmail('ＡＤＡ＠ｅｘａｍｐｌｅ.com')).toBe('ada@example.com');
    expect(validateEmail('üser@exämple.de')).toBe('üser@exämple.de');
    for (const bad of ['ada', 'ada@', '@example.com', 'ada@example', 'a da@example.com', 'ada@@example.com', 'a\u0000da@example.com', 'a\nda@example.com', '<script>@x.com', 'a"da@example.com', 'a\u202eda@example.com', 'ada@exa..mple.com']) {
      expect(() => validateEmail(bad), bad).toThrow('Email must be a valid email address');
    }
  });

  it("enforces the spec's minimum password length", () => {
    expect(() => validateNewPassword('12345')).toThrow('Password must be at least 6 characters long');
    expect(() => validateNewPassword('123456')).not.toThrow();
  });

  it('hashes with argon2id and verifies only the right password', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'correct horse')).toBe(true);
    expect(await verifyPassword(hash, 'wrong horse')).toBe(false);
    expect(await verifyPassword(null, 'correct horse')).toBe(false);
  });
});
