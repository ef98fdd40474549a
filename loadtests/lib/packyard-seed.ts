import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

const PASSWORD = 'correct horse battery';

export interface SeededRepository {
  packyard: RunningPackyard;
  bearer: string;
  /** `/workspaces/{wid}/repos/{rid}` */
  path: string;
  repositoryId: string;
}

async function json(response: Response) {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return JSON.parse(text);
}

/** Streams one file through the upload API, as the console does. */
export async function uploadFile(packyard: RunningPackyard, bearer: string, path: string, name: string, bytes: Uint8Array, distribution: string, wait = false) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  form.append('distribution', distribution);
  const response = await fetch(`${packyard.url}/api/v1${path}/upload${wait ? '?wait=published' : ''}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` }, body: form });
  return { status: response.status, body: await response.text() };
}

/**
 * A running Packyard whose data folder holds one repository with `files` uploaded through
 * the HTTP API. The folder is cached: the next run starts the program on it and signs in
 * again, so the seeding (minutes for 10,000 packages) happens once.
 */
export async function seededRepository(dataDir: string, kind: 'DEB' | 'RPM', files: string[], distribution: string): Promise<SeededRepository> {
  await mkdir(dataDir, { recursive: true });
  const marker = join(dataDir, 'bench-seed.json');
  const packyard = await startPackyard({ dataDir, timeoutMs: 120_000 });
  if (existsSync(marker)) {
    const seed = JSON.parse(await readFile(marker, 'utf8')) as { email: string; path: string; repositoryId: string };
    const { idToken } = await json(await fetch(`${packyard.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: seed.email, password: PASSWORD }) }));
    return { packyard, bearer: idToken, path: seed.path, repositoryId: seed.repositoryId };
  }
  const email = `bench-${Date.now()}@example.com`;
  const { idToken } = await json(await fetch(`${packyard.url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) }));
  const call = async (path: string, body: unknown) =>
    json(await fetch(`${packyard.url}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${idToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  const workspace = await call('/workspaces', { name: 'Bench', slug: `bench-${Date.now()}` });
  const repository = await call(`/workspaces/${workspace.id}/repos`, { name: `bench-${kind.toLowerCase()}`, kind });
  const path = `/workspaces/${workspace.id}/repos/${repository.id}`;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++];
      const answer = await uploadFile(packyard, idToken, path, basename(file), await readFile(file), distribution);
      if (answer.status !== 201) throw new Error(`seeding ${file}: ${answer.status} ${answer.body}`);
      if (next % 1000 === 0) process.stdout.write(`  seeded ${next}/${files.length} (${Math.round(performance.now() - started)} ms)\n`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  await writeFile(marker, JSON.stringify({ email, path, repositoryId: repository.id }));
  return { packyard, bearer: idToken, path, repositoryId: repository.id };
}
