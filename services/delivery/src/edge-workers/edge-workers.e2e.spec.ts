import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, get as httpGet, type OutgoingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { buildDeb, descriptorsOf, freePort, listeningInode, startPackyard, waitFor, type RunningPackyard } from '@packyard/testing';
import { EDGE_WORKER_MIN_SEMI_SPACE_MB, EDGE_WORKER_SEMI_SPACE_MB } from './edge-workers';

// Issue 18 item 1: with EDGE_WORKERS=2 the program answers the apt/yum edge from two worker
// processes on the one public port, forwards the API and the console to the main process,
// keeps every worker's catalogue and token verdicts current, and outlives a kill -9 of one.

const DISTRIBUTION = 'debian/bookworm';

let packyard: RunningPackyard;
let alice: ApiSession;
let workspaceId: string;
let repositoryId: string;
let repositoryUrl: string;
let token: { id: string; authorization: string };
let packagesDir: string;

interface Answer {
  status: number;
  body: string;
}

/** a GET on `agent`'s kept-alive connections, or on one of its own (false) */
const getOn = (url: string, agent: Agent | false, headers: OutgoingHttpHeaders = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    httpGet(url, { agent, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    }).on('error', reject);
  });

/** a GET on a connection of its own, so the kernel picks the process that accepts it */
const freshGet = (url: string, headers: OutgoingHttpHeaders = {}) => getOn(url, false, headers);

/** edge requests counted per process: by `edge_worker` label, '' for the main process */
async function edgeRequestsByProcess(status?: number): Promise<Map<string, number>> {
  const text = await (await fetch(packyard.metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/^packyard_delivery_requests_total\{([^}]*)\} (\d+)$/gm)) {
    if (status !== undefined && !match[1].includes(`status="${status}"`)) continue;
    const worker = /edge_worker="(\d+)"/.exec(match[1])?.[1] ?? '';
    counts.set(worker, (counts.get(worker) ?? 0) + Number(match[2]));
  }
  return counts;
}

/**
 * fetches `url` on fresh connections, ten at a time, until each worker has answered some
 * (the kernel picks the process, not always evenly); every answer must have `status`
 */
async function fromEveryWorker(url: string, headers: OutgoingHttpHeaders, status: number, check: (answer: Answer) => void = () => undefined): Promise<void> {
  const before = await edgeRequestsByProcess(status);
  for (let sent = 0; sent < 500; sent += 10) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => freshGet(url, headers)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(status));
    answers.forEach(check);
    const answered = grown(before, await edgeRequestsByProcess(status));
    if ((answered.get('1') ?? 0) > 0 && (answered.get('2') ?? 0) > 0) return;
  }
  throw new Error(`500 fresh connections to ${url} did not reach both workers`);
}

/** connections each worker holds, by the `packyard_delivery_edge_connections` gauge */
async function connectionsHeld(metricsUrl = packyard.metricsUrl): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  return new Map([...text.matchAll(/^packyard_delivery_edge_connections\{edge_worker="(\d+)"\} (\d+)$/gm)].map((match) => [match[1], Number(match[2])]));
}

/** connections the workers would have given away but kept, the main process not answering in time */
async function keptUnbalanced(): Promise<number> {
  const text = await (await fetch(packyard.metricsUrl)).text();
  return [...text.matchAll(/^packyard_delivery_edge_connections_kept_unbalanced_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** connections worker `slot` accepted and gave to another (the main process asks each worker that answers within its timeout) */
async function givenAway(slot: string): Promise<number> {
  const text = await (await fetch(packyard.metricsUrl)).text();
  return Number(new RegExp(`^packyard_delivery_edge_connections_given_total\\{edge_worker="${slot}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** opens `count` connections at once, each sending one GET of `path` right away; resolves with each one's first answer, the sockets left open */
async function burst(count: number, path: string, authorization: string): Promise<{ sockets: Socket[]; answers: string[] }> {
  const { hostname, port } = new URL(packyard.url);
  const sockets: Socket[] = [];
  const answers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\n\r\n`));
          sockets.push(socket);
          let answer = '';
          socket.setEncoding('latin1');
          socket.on('data', (chunk: string) => {
            answer += chunk;
            if (answer.includes('-----END PGP SIGNATURE-----')) resolve(answer);
          });
          socket.once('error', reject);
          socket.once('close', () => reject(new Error(`the connection closed after ${answer.length} bytes`)));
        }),
    ),
  );
  return { sockets, answers };
}

const grown = (before: Map<string, number>, after: Map<string, number>) => new Map([...after].map(([worker, count]) => [worker, count - (before.get(worker) ?? 0)]));

/** the pids of the edge workers that said they listen, newest last per slot */
function workerPids(): Map<number, number> {
  const pids = new Map<number, number>();
  for (const match of packyard.output().matchAll(/"edgeWorker":(\d+),"workerPid":(\d+),"port":\d+,"msg":"edge worker listening"/g)) pids.set(Number(match[1]), Number(match[2]));
  return pids;
}

const commandLineOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  packyard = await startPackyard({ edgeWorkers: 2 });
  packagesDir = await mkdtemp(join(tmpdir(), 'packyard-edge-workers-'));
  alice = await registerUser(packyard);
  const slug = `cores-${Date.now()}`;
  workspaceId = (await alice.call<{ id: string }>('POST', '/workspaces', { name: 'Cores', slug, description: '' })).body.id;
  const repository = await alice.call<{ id: string }>('POST', `/workspaces/${workspaceId}/repos`, { name: 'apt', kind: 'DEB', codename: 'bookworm', component: 'main' });
  expect(repository.status).toBe(201);
  repositoryId = repository.body.id;
  repositoryUrl = `${packyard.url}/deb/${slug}/apt`;
  const created = await alice.call<{ id: string; token: string }>('POST', `/repos/${repositoryId}/tokens`, { name: 'cores' });
  token = { id: created.body.id, authorization: `Basic ${Buffer.from(`${created.body.token}:`).toString('base64')}` };
  // the empty index of a new repository is published a moment after its creation
  await waitFor('the first publication', async () => ((await freshGet(`${repositoryUrl}/debian/dists/bookworm/InRelease`, { authorization: token.authorization })).status === 200 ? true : undefined), { timeoutMs: 30_000 });
});

afterAll(async () => {
  await packyard?.dispose();
  if (packagesDir) await rm(packagesDir, { recursive: true, force: true });
});

describe('the apt/yum edge on two worker processes (EDGE_WORKERS=2)', () => {
  it('answers edge requests from the worker processes, children of the program, which the main process never accepts', async () => {
    const pids = workerPids();
    expect([...pids.keys()].sort()).toEqual([1, 2]);
    for (const pid of pids.values()) expect(parentOf(pid)).toBe(packyard.child.pid);
    // a young generation sized for request churn, with a floor an idle worker is not shrunk below (see EDGE_WORKER_SEMI_SPACE_MB
    // and EDGE_WORKER_MIN_SEMI_SPACE_MB); the main process keeps V8's default
    for (const pid of pids.values()) {
      expect(commandLineOf(pid)).toContain(`--max-semi-space-size=${EDGE_WORKER_SEMI_SPACE_MB}`);
      expect(commandLineOf(pid)).toContain(`--min-semi-space-size=${EDGE_WORKER_MIN_SEMI_SPACE_MB}`);
    }
    expect(commandLineOf(packyard.child.pid!).some((flag) => flag.includes('-semi-space-size'))).toBe(false);

    const before = await edgeRequestsByProcess();
    const answers = await Promise.all(Array.from({ length: 40 }, () => freshGet(`${repositoryUrl}/debian/dists/bookworm/InRelease`, { authorization: token.authorization })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200));
    const served = grown(before, await edgeRequestsByProcess());
    expect(served.get('') ?? 0).toBe(0);
    expect((served.get('1') ?? 0) + (served.get('2') ?? 0)).toBe(40);
    console.log(`40 fresh connections: worker 1 answered ${served.get('1') ?? 0}, worker 2 ${served.get('2') ?? 0}`);
  });

  it('answers the API and the console on the same port, also on one kept-alive connection mixed with edge requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const get = (path: string, headers: OutgoingHttpHeaders) =>
      new Promise<Answer & { type: string }>((resolve, reject) => {
        const request = httpGet(`${packyard.url}${path}`, { agent, headers }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body, type: String(response.headers['content-type']) }));
        });
        request.on('socket', (socket) => sockets.add(socket));
        request.on('error', reject);
      });
    try {
      for (let round = 0; round < 3; round++) {
        const workspaces = await get('/api/v1/workspaces', { authorization: `Bearer ${alice.bearer}` });
        expect(workspaces.status).toBe(200);
        expect(workspaces.body).toContain(workspaceId);
        const console = await get('/', {});
        expect(console.status).toBe(200);
        expect(console.type).toMatch(/text\/html/);
        const inRelease = await get(`${new URL(repositoryUrl).pathname}/debian/dists/bookworm/InRelease`, { authorization: token.authorization });
        expect(inRelease.status).toBe(200);
        expect(inRelease.body).toMatch(/^-----BEGIN PGP SIGNED MESSAGE-----/);
        expect((await get('/api/v1/workspaces', {})).status).toBe(401);
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('serves a package on every worker as soon as the upload with ?wait=published answers', async () => {
    for (let round = 0; round < 3; round++) {
      const file = await buildDeb({ name: `packyard-cores-${round}`, version: '1.0.0', arch: 'amd64', compression: 'gzip' }, packagesDir);
      const form = new FormData();
      form.set('distribution', DISTRIBUTION);
      form.set('file', new Blob([await readFile(file)]), basename(file));
      const upload = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload?wait=published`, { method: 'POST', headers: { authorization: `Bearer ${alice.bearer}` }, body: form });
      expect(upload.status).toBe(201);
      await fromEveryWorker(`${repositoryUrl}/debian/dists/bookworm/main/binary-amd64/Packages`, { authorization: token.authorization }, 200, (answer) => expect(answer.body).toContain(`Package: packyard-cores-${round}\n`));
    }
  });

  it('refuses a revoked token on every worker within a second', async () => {
    const created = await alice.call<{ id: string; token: string }>('POST', `/repos/${repositoryId}/tokens`, { name: 'to-revoke' });
    const headers = { authorization: `Basic ${Buffer.from(`${created.body.token}:`).toString('base64')}` };
    const inRelease = `${repositoryUrl}/debian/dists/bookworm/InRelease`;
    // a verdict in the cache of each worker first
    await fromEveryWorker(inRelease, headers, 200);

    const revoked = performance.now();
    expect((await alice.call('DELETE', `/repos/${repositoryId}/tokens/${created.body.id}`)).status).toBe(204);
    await waitFor('a 401', async () => ((await freshGet(inRelease, headers)).status === 401 ? true : undefined), { timeoutMs: 10_000, intervalMs: 10 });
    console.log(`revoke → first 401 in ${(performance.now() - revoked).toFixed(0)} ms`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (performance.now() - revoked))));
    await fromEveryWorker(inRelease, headers, 401);
  });

  it('spreads a burst of new connections evenly over the workers, and every connection moved gets its answer', async () => {
    const path = `${new URL(repositoryUrl).pathname}/debian/dists/bookworm/InRelease`;
    const total = (counts: Map<string, number>) => (counts.get('1') ?? 0) + (counts.get('2') ?? 0);
    // the balance needs the main process to answer a worker's report while the burst waits: on a
    // loaded machine it sometimes does not, and the worker keeps what it accepted (the counter
    // says so). Those bursts are set aside: the test judges five whose reports were answered
    const imbalances: number[] = [];
    const unanswered: string[] = [];
    for (let round = 0; imbalances.length < 5 && round < 15; round++) {
      // connections other clients left open (a kept-alive one that closes later is the test's slack)
      const before = total(await connectionsHeld());
      const keptBefore = await keptUnbalanced();
      // 64 at once, as wrk opens them: the kernel alone put 63/1 or 10/54 on the two workers
      const { sockets, answers } = await burst(64, path, token.authorization);
      try {
        expect(answers.filter((answer) => !answer.startsWith('HTTP/1.1 200 OK\r\n'))).toEqual([]);
        const held = await waitFor('both workers counting the burst', async () => {
          const counts = await connectionsHeld();
          return total(counts) === before + 64 ? counts : undefined;
        }, { timeoutMs: 5_000, intervalMs: 20 });
        const kept = (await keptUnbalanced()) - keptBefore;
        console.log(`64 connections at once: worker 1 holds ${held.get('1')}, worker 2 ${held.get('2')}${kept ? ` (${kept} kept unanswered)` : ''}`);
        if (kept) unanswered.push(`${held.get('1')}/${held.get('2')}`);
        else imbalances.push(Math.abs(held.get('1')! - held.get('2')!));
      } finally {
        for (const socket of sockets) socket.destroy();
      }
      await waitFor('the burst closed', async () => (total(await connectionsHeld()) <= before ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });
    }
    expect(imbalances.length, `bursts the main process did not answer in time: ${unanswered.join(', ')}`).toBe(5);
    // at 32 each the balance's slack is 4 (connection-balance.ts), and a table may be behind on the other worker: 0-10
    // apart, now and then more. The kernel alone left them 16-62 apart (34 on average, six bursts)
    expect(imbalances.reduce((sum, imbalance) => sum + imbalance, 0) / imbalances.length, `apart: ${imbalances.join(', ')}`).toBeLessThanOrEqual(8);
  });

  it('restarts a worker killed with SIGKILL; clients that retry a broken connection see no error', async () => {
    const [victim, survivor] = [workerPids().get(1)!, workerPids().get(2)!];
    const inRelease = `${repositoryUrl}/debian/dists/bookworm/InRelease`;
    const statuses: number[] = [];
    let brokenConnections = 0;
    let running = true;
    // what apt does: a request whose connection breaks is tried again, once
    const client = async () => {
      while (running) {
        try {
          statuses.push((await freshGet(inRelease, { authorization: token.authorization })).status);
        } catch {
          brokenConnections++;
          statuses.push((await freshGet(inRelease, { authorization: token.authorization })).status);
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(victim, 'SIGKILL');
    await waitFor('a new worker 1', async () => ((workerPids().get(1) ?? victim) !== victim ? true : undefined), { timeoutMs: 30_000, intervalMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await Promise.all(clients);

    expect(alive(victim)).toBe(false);
    expect(alive(survivor)).toBe(true);
    expect(packyard.output()).toMatch(/"edgeWorker":1,"workerPid":\d+,"code":null,"signal":"SIGKILL".*"msg":"edge worker exited; restarting it"/);
    console.log(`${statuses.length} requests around the kill, ${brokenConnections} broken connections retried`);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const newPid = workerPids().get(1)!;
    expect(parentOf(newPid)).toBe(packyard.child.pid);
  });

  it('serves the connections on their way to a worker that dies before reading them: another worker takes them', async () => {
    const [stopped, other] = [workerPids().get(2)!, workerPids().get(1)!];
    const path = `${new URL(repositoryUrl).pathname}/debian/dists/bookworm/InRelease`;
    const givenBefore = await givenAway('1');
    // a worker stopped still counts as holding the fewest, so the other, which accepts the whole
    // burst, gives it connections that wait unread in its IPC channel: those a kill must not lose
    process.kill(stopped, 'SIGSTOP');
    // on a loaded machine the other worker may keep a burst (its table of counts came too late):
    // another burst follows every second until some are given
    const bursts: ReturnType<typeof burst>[] = [];
    try {
      await waitFor(
        'connections given to the stopped worker',
        async () => {
          if ((await givenAway('1')) > givenBefore) return true;
          if (bursts.length < 8) {
            const next = burst(16, path, token.authorization);
            next.catch(() => undefined);
            bursts.push(next);
          }
          return undefined;
        },
        { timeoutMs: 10_000, intervalMs: 1_000 },
      );
      process.kill(stopped, 'SIGKILL');
    } finally {
      process.kill(stopped, 'SIGCONT');
    }
    const answered = await Promise.all(bursts);
    const sockets = answered.flatMap((each) => each.sockets);
    const answers = answered.flatMap((each) => each.answers);
    for (const socket of sockets) socket.destroy();
    console.log(`${(await givenAway('1')) - givenBefore} of ${answers.length} connections given to the stopped worker, then killed`);
    expect(answers.filter((answer) => !answer.startsWith('HTTP/1.1 200 OK\r\n'))).toEqual([]);
    expect(alive(other)).toBe(true);
    await waitFor('a new worker 2', async () => ((workerPids().get(2) ?? stopped) !== stopped ? true : undefined), { timeoutMs: 30_000, intervalMs: 50 });
  });

  it('accepts through eight descriptors of the port in each worker, the restarted one too (libuv accepts one connection per descriptor per turn of a busy loop)', async () => {
    const inode = listeningInode(Number(new URL(packyard.url).port))!;
    const workers = [...workerPids().values()];
    expect(workers).toHaveLength(2);
    await waitFor('every worker holding its copies', async () => (workers.every((pid) => descriptorsOf(pid, inode) === 8) ? true : undefined), { timeoutMs: 10_000, intervalMs: 50 });
    // the main process keeps the one socket node:cluster bound, and accepts on none
    expect(descriptorsOf(packyard.child.pid!, inode)).toBe(1);
    // a burst of fresh connections is still answered by the workers alone
    const answers = await Promise.all(Array.from({ length: 200 }, () => freshGet(`${repositoryUrl}/debian/dists/bookworm/InRelease`, { authorization: token.authorization })));
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
  });

  it('stops every worker with the program on SIGTERM', async () => {
    const pids = [...workerPids().values()];
    expect(await packyard.stop('SIGTERM')).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('started again, shares the connections that waited for the port between its workers (the first to listen does not keep them all)', async () => {
    // stopped by the test before, unless that one was left out
    if (packyard.child.exitCode === null) await packyard.stop('SIGTERM');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}${new URL(repositoryUrl).pathname}/debian/dists/bookworm/InRelease`;
    // sixteen clients knock while the port is closed, each keeping the connection that answers
    const clients = Array.from({ length: 16 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    let knockingDone = false;
    const knocking = clients.map(async (agent) => {
      // until the test ends, also when the program never listens
      while (!knockingDone) {
        try {
          return await getOn(url, agent, { authorization: token.authorization });
        } catch (error) {
          // refused while nothing listens; reset by a process that stops listening (the last one)
          if (!['ECONNREFUSED', 'ECONNRESET'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      return undefined;
    });
    let again: RunningPackyard | undefined;
    try {
      again = await startPackyard({ edgeWorkers: 2, dataDir: packyard.dataDir, env: { PORT: String(port) } });
      const { metricsUrl } = again;
      expect((await Promise.all(knocking)).map((answer) => answer?.status)).toEqual(Array(16).fill(200));
      const held = await waitFor(
        "every kept-alive connection counted (the program's own health checks may hold one more)",
        async () => {
          const counts = await connectionsHeld(metricsUrl);
          return (counts.get('1') ?? 0) + (counts.get('2') ?? 0) >= 16 ? counts : undefined;
        },
        { timeoutMs: 10_000 },
      );
      expect(Math.min(held.get('1')!, held.get('2')!)).toBeGreaterThanOrEqual(4);
    } finally {
      knockingDone = true;
      for (const agent of clients) agent.destroy();
      await again?.dispose();
    }
  });
});
