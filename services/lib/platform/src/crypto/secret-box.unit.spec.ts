import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateMasterKey } from './master-key';
import { createSecretBox, SecretBoxError } from './secret-box';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, strings and bytes alike, with a fresh nonce every time', () => {
    const first = box.seal('pk_live_repo_token');
    const second = box.seal('pk_live_repo_token');
    expect(first).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(box.open(first).toString()).toBe('pk_live_repo_token');
    const bytes = randomBytes(300);
    expect(box.open(box.seal(bytes)).equals(bytes)).toBe(true);
  });

  it('refuses a tampered value, another key, another context and unknown formats', () => {
    const sealed = box.seal('secret', 'token-1');
    const payload = Buffer.from(sealed.slice(3), 'base64url');
    payload[payload.length - 20] ^= 1;
    expect(() => box.open(`v1.${payload.toString('base64url')}`, 'token-1')).toThrow(SecretBoxError);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'token-1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'token-2')).toThrow(SecretBoxError);
    expect(() => box.open(`v2.${sealed.slice(3)}`, 'token-1')).toThrow(SecretBoxError);
    expect(() => box.open('v1.AAAA')).toThrow(SecretBoxError);
    expect(box.open(sealed, 'token-1').toString()).toBe('secret');
  });

  it('refuses a master key of the wrong size', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('loadOrCreateMasterKey', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-key-'));
    dirs.push(dir);
    return join(dir, 'data');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('generates a 32-byte key readable only by its owner on first start and keeps it', async () => {
    const dir = dataDir();
    const key = await loadOrCreateMasterKey(dir);
    expect(key).toHaveLength(32);
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);
    expect((await loadOrCreateMasterKey(dir)).equals(key)).toBe(true);
  });

  it('hands every concurrent starter the same key', async () => {
    const dir = dataDir();
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateMasterKey(dir)));
    for (const key of keys) expect(key.equals(keys[0])).toBe(true);
  });

  it('prefers PACKYARD_MASTER_KEY and rejects one of the wrong length', async () => {
    const dir = dataDir();
    const fromEnv = randomBytes(32);
    expect((await loadOrCreateMasterKey(dir, fromEnv.toString('base64'))).equals(fromEnv)).toBe(true);
    await expect(loadOrCreateMasterKey(dir, randomBytes(20).toString('base64'))).rejects.toThrow(/32 bytes/);
  });

  it('rejects a damaged key file rather than replacing it', async () => {
    const dir = dataDir();
    await loadOrCreateMasterKey(dir);
    writeFileSync(join(dir, 'master.key'), 'not a key');
    await expect(loadOrCreateMasterKey(dir)).rejects.toThrow(/master.key/);
  });
});
