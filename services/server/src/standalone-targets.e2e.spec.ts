import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqliteEventStoreFile } from '@packyard/platform/eventsourcing/sqlite-event-store.adapter';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

const BACKEND = ['identity', 'workspace', 'repository', 'artifact', 'token', 'signing', 'delivery'];

const startedModules = (packyard: RunningPackyard): string[] =>
  JSON.parse(packyard.output().split('\n').find((line) => line.includes('"msg":"Packyard started"'))!).modules;

async function checkAlone(targets: string[]) {
  // three start at once on a shared machine: give each more than the default 30 s to listen
  const packyard = await startPackyard({ targets, waitForHealth: false, timeoutMs: 120_000 });
  try {
    const liveness = await fetch(`${packyard.url}/api/actuator/health/liveness`);
    const readiness = await fetch(`${packyard.url}/api/actuator/health`);
    const metrics = await fetch(packyard.metricsUrl);
    return {
      liveness: liveness.status,
      readiness: { status: readiness.status, body: await readiness.json() },
      metrics: { status: metrics.status, text: await metrics.text() },
      modules: startedModules(packyard),
    };
  } finally {
    await packyard.dispose();
  }
}

describe('every target stands alone', () => {
  // three at a time: a shared two-core machine
  it('each backend module alone answers liveness, readiness (its own check) and /metrics', { timeout: 600_000 }, async () => {
    const results = new Map<string, Awaited<ReturnType<typeof checkAlone>>>();
    for (let i = 0; i < BACKEND.length; i += 3) {
      const batch = BACKEND.slice(i, i + 3);
      const answers = await Promise.all(batch.map((target) => checkAlone([target])));
      batch.forEach((target, index) => results.set(target, answers[index]));
    }
    for (const [target, result] of results) {
      expect({ target, liveness: result.liveness }).toEqual({ target, liveness: 200 });
      expect({ target, status: result.readiness.status, body: result.readiness.body }).toEqual({ target, status: 200, body: { status: 'UP', components: { [target]: 'UP' } } });
      expect(result.metrics.status).toBe(200);
      expect(result.metrics.text).toMatch(/process_resident_memory_bytes \d+/);
      // exactly the infrastructure the module uses, and no other service module
      expect(result.modules.filter((m) => BACKEND.includes(m) || m === 'gateway')).toEqual([target]);
    }
    // a module that keeps no bytes opens no blob store; one that calls no other module opens no gRPC clients
    for (const target of ['identity', 'workspace', 'signing']) {
      expect({ target, modules: results.get(target)!.modules }).toEqual({ target, modules: expect.not.arrayContaining(['blob-store']) });
    }
    // signing asks repository whether a caller may see a repository's keys, workspace asks repository and
    // delivery whether a package is served (its package.published webhook); identity calls no module
    expect(results.get('identity')!.modules).toEqual(expect.not.arrayContaining(['grpc-clients']));
  });

  it('the gateway alone answers liveness and /metrics, and is not ready without its upstream modules', async () => {
    const result = await checkAlone(['gateway']);
    expect(result.liveness).toBe(200);
    expect(result.readiness.status).toBe(503);
    expect(result.readiness.body.components.identity).toContain('set IDENTITY_GRPC_ADDR');
    expect(result.metrics.status).toBe(200);
    expect(result.modules).not.toContain('bus');
  });

  it('a comma list of targets reports each module in readiness', async () => {
    const result = await checkAlone(['workspace', 'token']);
    expect(result.readiness).toEqual({ status: 200, body: { status: 'UP', components: { workspace: 'UP', token: 'UP' } } });
    expect(result.metrics.status).toBe(200);
  });
});

describe('a module that fails while running', () => {
  it('stops the process with the module named in the log and a non-zero exit, rather than retrying forever', { timeout: 60_000 }, async () => {
    const packyard = await startPackyard({ targets: ['workspace'] });
    try {
      // the store goes away under the running module: its projections and outbox relay cannot read the log
      const database = new Database(sqliteEventStoreFile(packyard.dataDir, 'workspace'));
      database.exec('ALTER TABLE events RENAME TO events_gone');
      database.close();
      const code = await new Promise<number | null>((resolve) => packyard.child.once('exit', resolve));
      expect(code).toBe(1);
      const fatal = packyard
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; module?: string; msg: string })
        .find((entry) => entry.level === 60);
      expect(fatal).toMatchObject({ module: 'workspace', msg: 'module workspace failed; stopping' });
      expect(packyard.output()).toContain('"msg":"stopped"');
    } finally {
      await packyard.dispose();
    }
  });
});
