import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ClientError, EXIT } from './exit-codes';

export interface Credentials {
  url: string;
  token: string;
}

/** `$XDG_CONFIG_HOME/packyard` (XDG Base Directory spec), else `~/.config/packyard`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'packyard');
}

export const credentialsFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

async function readStored(env: NodeJS.ProcessEnv): Promise<Partial<Credentials>> {
  try {
    const stored = JSON.parse(await readFile(credentialsFile(env), 'utf8')) as Partial<Credentials>;
    return { url: typeof stored.url === 'string' ? stored.url : undefined, token: typeof stored.token === 'string' ? stored.token : undefined };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ClientError(EXIT.usage, `cannot read ${credentialsFile(env)}: ${(error as Error).message}`);
  }
}

/** The token is a secret: written to a 0600 file in a 0700 folder, replaced by rename so it is never half-written. */
export async function storeCredentials(env: NodeJS.ProcessEnv, credentials: Credentials): Promise<string> {
  const directory = configDir(env);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

/** Flags win over the environment (PACKYARD_URL, PACKYARD_TOKEN; empty is unset), which wins over `packyard login`'s file. */
export async function resolveCredentials(env: NodeJS.ProcessEnv, flags: { url?: string }): Promise<Credentials> {
  const stored = await readStored(env);
  const url = (flags.url || env.PACKYARD_URL || stored.url || '').replace(/\/+$/, '');
  const token = env.PACKYARD_TOKEN || stored.token || '';
  if (!url) throw new ClientError(EXIT.usage, 'no server: pass --url, set PACKYARD_URL or run `packyard login --url <url>`');
  if (!token) throw new ClientError(EXIT.auth, 'not signed in: set PACKYARD_TOKEN to an account token or run `packyard login`');
  return { url, token };
}
