import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MASTER_KEY_BYTES, SecretBoxError } from './secret-box';

const decode = (base64: string, source: string): Buffer => {
  const key = Buffer.from(base64.trim(), 'base64');
  if (key.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`${source} must hold ${MASTER_KEY_BYTES} bytes in base64, found ${key.length}`);
  return key;
};

/**
 * The key tokens and signing keys are sealed with. `PACKYARD_MASTER_KEY` (base64) wins, as
 * a cluster must share one key; otherwise the single node keeps its own in
 * `<dataDir>/master.key` (base64, mode 0600), generated on first start. Losing that file
 * makes every sealed secret unreadable, so back it up with the data.
 */
export const loadOrCreateMasterKey = (dataDir: string, envValue?: string): Promise<Buffer> => loadOrCreateKey(dataDir, 'master.key', 'PACKYARD_MASTER_KEY', envValue);

/** a 32-byte key from its environment variable (base64), else from `<dataDir>/<fileName>`, generated on first start */
export async function loadOrCreateKey(dataDir: string, fileName: string, envName: string, envValue?: string): Promise<Buffer> {
  if (envValue) return decode(envValue, envName);
  const file = join(dataDir, fileName);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return decode(existing, file);

  await mkdir(dataDir, { recursive: true });
  // written aside then linked: the key appears whole, and a process starting at the same
  // moment either wins the link or reads the winner's key
  const candidate = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(candidate, `${randomBytes(MASTER_KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(candidate, { force: true });
  }
  return decode(await readFile(file, 'utf8'), file);
}
