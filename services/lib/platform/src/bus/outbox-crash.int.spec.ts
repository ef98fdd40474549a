import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./outbox-crash.fixture.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'packyard-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the fixture; resolves with the acknowledged ids and the last line once it exits. */
function run(mode: 'write' | 'drain', killAfterAcks?: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir, mode], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: string[] = [];
  let lastLine = '';
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      lastLine = line;
      if (line.startsWith('ACK ')) acked.push(...line.slice(4).split(' '));
      if (killAfterAcks !== undefined && acked.length >= killAfterAcks) child.kill('SIGKILL');
    }
  });
  return new Promise<{ acked: string[]; lastLine: string; signal: NodeJS.Signals | null; code: number | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ acked, lastLine, signal, code })),
  );
}

it('loses no acknowledged event and applies none twice across kill -9 during appends and publishes', async () => {
  const first = await run('write', 400);
  const second = await run('write', 300);
  expect([first.signal, second.signal]).toEqual(['SIGKILL', 'SIGKILL']);
  const drained = await run('drain');
  expect(drained.code).toBe(0);

  const events = new Database(join(dataDir, 'crash', 'events.db'), { readonly: true });
  const stored = events.prepare('SELECT id, integration FROM events').all() as { id: string; integration: number }[];
  events.close();
  const storedIds = new Set(stored.map((e) => e.id));
  for (const id of [...first.acked, ...second.acked]) expect(storedIds.has(id), `acknowledged event ${id} lost`).toBe(true);
  expect(storedIds.size).toBe(stored.length);

  const integrationIds = stored.filter((e) => e.integration).map((e) => e.id).sort();
  expect(drained.lastLine).toBe(`DRAINED ${integrationIds.length}`);
  const effects = new Database(join(dataDir, 'effects.db'), { readonly: true });
  const applied = (effects.prepare('SELECT id FROM applied ORDER BY id').all() as { id: string }[]).map((row) => row.id);
  const { n } = effects.prepare('SELECT n FROM tally').get() as { n: number };
  effects.close();
  expect(applied).toEqual(integrationIds);
  expect(n).toBe(integrationIds.length);
}, 60_000);
