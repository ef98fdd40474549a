import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKYARD_BIN, REPO_ROOT, startPackyard, type RunningPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';

const run = promisify(execFile);
const errorLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

describe('single-node program (--target=all)', () => {
  let packyard: RunningPackyard;
  let startMs = 0;
  beforeAll(async () => {
    const started = performance.now();
    packyard = await startPackyard();
    startMs = performance.now() - started;
  });
  afterAll(() => packyard?.dispose());

  it('becomes healthy, every module answering gRPC health over loopback', async () => {
    // a figure for the record, not an assertion: a loaded CI machine must not fail on speed
    console.log(`single-node start to healthy: ${Math.round(startMs)} ms`);
    const response = await fetch(`${packyard.url}/api/actuator/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe('UP');
    expect(body.components).toMatchObject({ workspace: 'UP', identity: 'UP', repository: 'UP', delivery: 'UP' });
  });

  it('says where the console is, and warns about nothing at start', async () => {
    const consoleLine = packyard
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; url?: string })
      .find((line) => line.msg.startsWith('Console at '));
    expect(consoleLine).toMatchObject({ msg: `Console at http://127.0.0.1:${packyard.port}/`, url: `http://127.0.0.1:${packyard.port}/` });
    expect(packyard.output()).not.toMatch(/Deprecation|FSTDEP|Warning:/);
  });

  it('answers /api/v1 without credentials with a 401 JSON error', async () => {
    const response = await fetch(`${packyard.url}/api/v1/workspaces`);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ status: 401, message: 'Authentication required', details: {} });
  });

  it('serves an HTML page at / and at console routes', async () => {
    for (const path of ['/', '/dashboard', '/workspaces/abc/repos']) {
      const response = await fetch(`${packyard.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(await response.text()).toMatch(/<html/i);
    }
  });

  it('publishes a valid OpenAPI 3 document', async () => {
    const doc = await (await fetch(`${packyard.url}/api/openapi.json`)).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe('Packyard API');
    expect(typeof doc.paths).toBe('object');
  });

  it('exposes per-route HTTP and per-method gRPC series on /metrics, on its own port and not the public one', async () => {
    await fetch(`${packyard.url}/api/actuator/health`);
    await fetch(`${packyard.url}/api/v1/workspaces`);
    await registerUser(packyard);
    expect(new URL(packyard.metricsUrl).port).not.toBe(String(packyard.port));
    expect(await (await fetch(`${packyard.url}/metrics`)).text()).not.toContain('process_resident_memory_bytes');
    const metrics = await (await fetch(packyard.metricsUrl)).text();
    expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/api\/actuator\/health",status_code="200"\} \d+/);
    expect(metrics).toMatch(/http_request_duration_seconds_bucket\{le="[\d.]+",method="GET",route="\/api\/v1\/workspaces",status_code="401"\}/);
    // the gateway's call to identity went over loopback gRPC, caller assertion and all
    expect(metrics).toMatch(/grpc_server_handled_total\{grpc_type="unary",grpc_service="packyard.identity.v1.IdentityService",grpc_method="Register",grpc_code="OK"\} 1/);
    expect(metrics).toMatch(/grpc_client_handling_seconds_count\{grpc_type="unary",grpc_service="packyard.identity.v1.IdentityService",grpc_method="Register",grpc_code="OK"\} 1/);
    expect(metrics).toMatch(/process_resident_memory_bytes \d+/);
  });

  it('exits 0 within 5 s of SIGTERM with nothing logged at error level', async () => {
    const stopping = performance.now();
    const code = await packyard.stop('SIGTERM');
    expect(code).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(5_000);
    expect(errorLines(packyard.output())).toEqual([]);
    expect(packyard.output()).toContain('"msg":"stopped"');
  });
});

describe('the bundle npm start runs', () => {
  it('forks its edge workers from their own bundle, which answer the apt/yum edge', async () => {
    await run(process.execPath, [join(REPO_ROOT, 'services', 'server', 'build.mjs')]);
    const dist = join(REPO_ROOT, 'services', 'server', 'dist');
    const packyard = await startPackyard({ bin: join(dist, 'main.mjs'), edgeWorkers: 2 });
    try {
      const workers = [...packyard.output().matchAll(/"workerPid":(\d+),"port":\d+,"msg":"edge worker listening"/g)].map((match) => Number(match[1]));
      expect(workers).toHaveLength(2);
      // the workers' bundle holds the edge's code only: a worker that loaded the program's would load every module's dependencies
      for (const pid of workers) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(join(dist, 'edge-worker.mjs'));
      const answer = await fetch(`${packyard.url}/deb/nobody/nothing/dists/bookworm/InRelease`);
      expect([401, 404]).toContain(answer.status);
      const metrics = await (await fetch(packyard.metricsUrl)).text();
      expect(metrics).toMatch(/^packyard_delivery_requests_total\{[^}]*edge_worker="\d"[^}]*\} [1-9]/m);
    } finally {
      await packyard.dispose();
    }
  });
});

describe('separate processes find each other by configured address', () => {
  it('runs the gateway in one process and the other modules in another', async () => {
    // the processes of one installation share the key their calls are authenticated with
    const shared = { INTERNAL_AUTH_KEY: randomBytes(32).toString('base64') };
    const backend = await startPackyard({ targets: ['identity', 'workspace', 'repository', 'artifact', 'token', 'signing', 'delivery'], waitForHealth: true, env: shared });
    const addresses = Object.fromEntries(
      ['identity', 'workspace', 'repository', 'artifact', 'token', 'delivery'].map((m) => [`${m.toUpperCase()}_GRPC_ADDR`, backend.grpcAddress]),
    );
    const gateway = await startPackyard({ targets: ['gateway'], env: { ...addresses, ...shared } });
    try {
      const health = await (await fetch(`${gateway.url}/api/actuator/health`)).json();
      expect(health).toMatchObject({ status: 'UP', components: { workspace: 'UP', identity: 'UP' } });
      const metrics = await (await fetch(backend.metricsUrl)).text();
      // the backend served the gateway's checks over real gRPC
      expect(metrics).toMatch(/grpc_server_handled_total\{grpc_type="unary",grpc_service="grpc.health.v1.Health",grpc_method="Check",grpc_code="OK"\} \d+/);
      const started = JSON.parse(gateway.output().split('\n').find((line) => line.includes('"msg":"Packyard started"'))!);
      expect(started.modules).toContain('gateway');
      // no service module but the gateway runs there: every call crossed the process boundary
      expect(started.modules.filter((m: string) => ['identity', 'workspace', 'repository', 'artifact', 'token', 'signing', 'delivery'].includes(m))).toEqual([]);
    } finally {
      await gateway.dispose();
      await backend.dispose();
    }
  });

  it('is not ready while a module it calls is unreachable', async () => {
    const gateway = await startPackyard({ targets: ['gateway'], waitForHealth: false });
    try {
      const response = await fetch(`${gateway.url}/api/actuator/health`);
      expect(response.status).toBe(503);
      const body = await response.json();
      expect(body.status).toBe('DOWN');
      expect(body.components.workspace).toContain('set WORKSPACE_GRPC_ADDR');
    } finally {
      await gateway.dispose();
    }
  });
});

describe('start-up failures and the command line', () => {
  it('stops with the failing module named when it cannot start', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await run(process.execPath, [PACKYARD_BIN], { env: { ...process.env, PORT: String(port), METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: `/tmp/packyard-fail-${port}` } }).catch((e) => e);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('module http-server failed to start; stopping');
      expect(result.stdout).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });

  it('prints --help with targets and settings, and --list-targets', async () => {
    const help = await run(process.execPath, [PACKYARD_BIN, '--help']);
    expect(help.stdout).toContain('packyard [--target=all|<module>');
    expect(help.stdout).toMatch(/PORT\s+8080/);
    expect(help.stdout).toMatch(/DATA_DIR\s+\.\/data/);
    const targets = await run(process.execPath, [PACKYARD_BIN, '--list-targets']);
    expect(targets.stdout.split('\n').map((l) => l.split('\t')[0]).filter(Boolean)).toEqual([
      'all', 'gateway', 'identity', 'workspace', 'repository', 'artifact', 'token', 'signing', 'delivery',
    ]);
    const wrong = await run(process.execPath, [PACKYARD_BIN, '--target=metrics']).catch((e) => e);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown target "metrics"');
  });
});

describe('on a terminal (LOG_FORMAT=pretty, what a TTY gets by default)', () => {
  it('logs lines a person reads, with the console address to open', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'packyard-pretty-'));
    const child = spawn(process.execPath, [PACKYARD_BIN], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: '0', GRPC_PORT: '0', HOST: '0.0.0.0', DATA_DIR: dataDir, LOG_FORMAT: 'pretty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 60_000;
      while (!/Console at (http:\/\/localhost:\d+\/)/.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no console line:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const url = /Console at (http:\/\/localhost:\d+\/)/.exec(output)![1];
      expect(output).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}http-server: HTTP server listening port=\d+$/m);
      expect(output.split('\n').filter((line) => line.startsWith('{'))).toEqual([]);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('request bodies', () => {
  it('accepts a DELETE with a JSON content type and no body, and rejects malformed JSON with 400', async () => {
    const packyard = await startPackyard();
    try {
      const session = await (await fetch(`${packyard.url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bodies@example.com', password: 'secret-password' }) })).json();
      const auth = { authorization: `Bearer ${session.idToken}`, 'content-type': 'application/json' };
      const workspace = await (await fetch(`${packyard.url}/api/v1/workspaces`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bodies', slug: 'bodies' }) })).json();
      const deleted = await fetch(`${packyard.url}/api/v1/workspaces/${workspace.id}`, { method: 'DELETE', headers: auth });
      expect(deleted.status).toBeLessThan(300);
      const malformed = await fetch(`${packyard.url}/api/v1/workspaces`, { method: 'POST', headers: auth, body: '{"name":' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ status: 400, message: expect.stringContaining('not valid JSON') });
    } finally {
      await packyard.dispose();
    }
  });
});

const BUNDLE = `${REPO_ROOT}/services/server/dist/main.mjs`;
describe.skipIf(!existsSync(BUNDLE))('the built program that npm start runs (skipped until `npm run build`)', () => {
  it('serves health, the console and the install scripts from the bundle', async () => {
    const started = performance.now();
    const packyard = await startPackyard({ bin: BUNDLE, edgeWorkers: 'program default' });
    try {
      console.log(`bundle start to healthy: ${Math.round(performance.now() - started)} ms`);
      expect((await fetch(`${packyard.url}/api/actuator/health`)).status).toBe(200);
      expect(await (await fetch(`${packyard.url}/`)).text()).toMatch(/<html/i);
      const script = await fetch(`${packyard.url}/api/install-deb.sh?repo=unknown`);
      expect(script.status).toBe(404);
    } finally {
      await packyard.dispose();
    }
  });
});
