import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStoreFile } from '@packyard/platform/eventsourcing/sqlite-event-store.adapter';
import { aptGet, buildDeb, buildRpm, dnf, dnfRoot, freshDebianRoot, runInRoot, waitFor, type DebianRoot, type RpmRoot } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { repositoryProbes, startFetchLoop } from '@packyard/testing/clients/fetch-loop';
import { kafkaBrokerUnavailable } from '@packyard/testing/servers/kafka-broker.server';
import { radosgwUnavailable } from '@packyard/testing/servers/radosgw.server';
import { sharedKafkaBroker, sharedRadosgw } from '@packyard/testing/servers/shared-servers';
import { startCluster, type ClusterProcessName, type RunningCluster } from './cluster';

// The cluster as `npm run cluster` starts it: every module its own process (two gateways,
// two delivery replicas, two repository replicas on one store) on the run's Kafka-protocol broker (librdkafka's mock cluster,
// NOT Apache Kafka) and radosgw, behind the two round-robin proxies. Real apt-get in a
// bookworm root and dnf in an EL 9 root, through each delivery replica.

const unavailable = radosgwUnavailable() ?? kafkaBrokerUnavailable();
const DELIVERY_REPLICAS: ClusterProcessName[] = ['delivery-1', 'delivery-2'];
const REPOSITORY_REPLICAS: ClusterProcessName[] = ['repository-1', 'repository-2'];
const run = promisify(execFile);

interface Snippets {
  apt: string;
  repositoryUrl: string;
  publicKeyUrl: string;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];

describe.skipIf(unavailable)(`the distributed cluster${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let cluster: RunningCluster;
  let session: ApiSession;
  let work: string;
  let workspaceId: string;
  let deb: { id: string; token: string; snippets: Snippets };
  let rpm: { id: string; token: string; snippets: Snippets };
  const roots: { cleanup(): Promise<void> }[] = [];

  /** the repository URL as one delivery replica serves it (the snippets name the apt proxy) */
  const throughReplica = (url: string, replica: ClusterProcessName) => url.replaceAll(cluster.aptUrl, cluster.process(replica).url);

  const upload = async (repositoryId: string, file: string, distribution: string, wait: boolean) => {
    const form = new FormData();
    form.set('distribution', distribution);
    form.set('file', new Blob([await readFile(file)]), basename(file));
    const response = await fetch(`${cluster.consoleUrl}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload${wait ? '?wait=published' : ''}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.bearer}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as { id: string; sha256: string } };
  };

  /** a bookworm root whose apt reads the DEB repository from one replica, set up with the console's own instructions */
  const aptThrough = async (replica: ClusterProcessName): Promise<DebianRoot> => {
    const root = await freshDebianRoot();
    roots.push(root);
    const setup = await runInRoot(root, `set -e\n${throughReplica(deb.snippets.apt, replica)}`);
    expect(setup.code, setup.stderr).toBe(0);
    return root;
  };

  /** gpgv over InRelease as a replica serves it, against the repository's key */
  const verifyInRelease = async (replica: ClusterProcessName) => {
    const base = throughReplica(deb.snippets.repositoryUrl, replica);
    const auth = { authorization: `Basic ${Buffer.from(`${deb.token}:`).toString('base64')}` };
    const keyring = join(work, `${replica}.keyring.gpg`);
    const inRelease = join(work, `${replica}.InRelease`);
    await writeFile(keyring, Buffer.from(await (await fetch(`${base}/keyring.gpg`)).arrayBuffer()));
    const answer = await fetch(`${base}/debian/dists/bookworm/InRelease`, { headers: auth });
    expect(answer.status).toBe(200);
    await writeFile(inRelease, Buffer.from(await answer.arrayBuffer()));
    await run('gpgv', ['--keyring', keyring, inRelease]);
  };

  beforeAll(async () => {
    const [kafka, s3] = await Promise.all([sharedKafkaBroker(), sharedRadosgw()]);
    if (!kafka.server || !s3.server) throw new Error(`shared servers missing: ${kafka.skip ?? s3.skip}`);
    work = await mkdtemp(join(tmpdir(), 'packyard-cluster-e2e-'));
    const started = performance.now();
    cluster = await startCluster({ dataDir: work, port: 0, aptPort: 0, servers: { kafkaBrokers: kafka.server.brokers, s3: s3.server } });
    // figures for the record (a loaded CI machine must not fail on speed)
    console.log(`cluster start to healthy: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`RSS per process (MiB): ${cluster.processes.map((p) => `${p.name} ${Math.round((p.rssBytes() ?? 0) / 2 ** 20)}`).join(', ')}`);

    session = await registerUser({ url: cluster.consoleUrl });
    workspaceId = (await session.call('POST', '/workspaces', { name: 'Cluster', slug: `cluster-${Date.now()}` })).body.id;
    const repository = async (name: string, kind: 'DEB' | 'RPM') => {
      const created = await session.call('POST', `/workspaces/${workspaceId}/repos`, { name, kind, codename: 'bookworm', component: 'main' });
      expect(created.status).toBe(201);
      const { token } = (await session.call('POST', `/repos/${created.body.id}/tokens`, { name: 'e2e' })).body;
      // delivery learns of the new repository through Kafka: its snippets answer once it has
      const path = `/repos/${created.body.id}/snippets?${new URLSearchParams({ codename: 'bookworm', component: 'main', token })}`;
      let answer = await session.call('GET', path);
      for (const deadline = Date.now() + 60_000; answer.status !== 200 && Date.now() < deadline; answer = await session.call('GET', path)) await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const snippets = answer.body;
      return { id: created.body.id as string, token: token as string, snippets: snippets as Snippets };
    };
    deb = await repository('apt', 'DEB');
    rpm = await repository('yum', 'RPM');
  });

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all(roots.map((root) => root.cleanup()));
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('apt-get and dnf install through each delivery replica what was uploaded through the gateways, as soon as ?wait=published answers', async () => {
    const debFile = await buildDeb({ name: 'cluster-hello', version: '1.0.0', arch: 'all' }, work);
    const uploaded = await upload(deb.id, debFile, 'debian/bookworm', true);
    expect(uploaded.status).toBe(201);
    // no polling: once the wait answered, both replicas serve it
    for (const replica of DELIVERY_REPLICAS) {
      const root = await aptThrough(replica);
      const installed = await aptGet(root, ['install', '-y', 'cluster-hello']);
      expect(installed.code, `${replica}: ${installed.stderr}`).toBe(0);
      expect((await runInRoot(root, "dpkg-query -W -f '${Version}' cluster-hello")).stdout).toBe('1.0.0');
      await verifyInRelease(replica);
    }

    const rpmFile = await buildRpm({ name: 'cluster-hello', version: '1.0.0', release: '1', arch: 'noarch' }, work);
    expect((await upload(rpm.id, rpmFile, 'el/9', true)).status).toBe(201);
    for (const replica of DELIVERY_REPLICAS) {
      const home: RpmRoot = await dnfRoot({ id: 'yum', baseUrl: `${throughReplica(rpm.snippets.repositoryUrl, replica)}/el/9`, publicKeyUrl: throughReplica(rpm.snippets.publicKeyUrl, replica), token: rpm.token });
      roots.push(home);
      const installed = await dnf(home, ['install', 'cluster-hello']);
      expect(installed.stderr).not.toMatch(/signature|GPG check FAILED/i);
      expect(installed.code, `${replica}: ${installed.stderr}`).toBe(0);
    }
  }, 600_000);

  it('the API reads its writes through either repository replica: 12 repositories created are each found, listed and deleted at once', async () => {
    const handledBy = async (replica: ClusterProcessName) => {
      const metrics = await (await fetch(cluster.process(replica).metricsUrl)).text();
      return [...metrics.matchAll(/^grpc_server_handled_total\{[^}]*grpc_service="packyard\.repository[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    const before = await Promise.all(REPOSITORY_REPLICAS.map(handledBy));
    for (let i = 0; i < 12; i++) {
      const created = await session.call('POST', `/workspaces/${workspaceId}/repos`, { name: `read-back-${i}`, kind: i % 2 ? 'RPM' : 'DEB', codename: 'bookworm', component: 'main' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await session.call('GET', `/workspaces/${workspaceId}/repos/${created.body.id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      const listed = await session.call('GET', `/workspaces/${workspaceId}/repos`);
      expect((listed.body as { id: string }[]).map((repository) => repository.id)).toContain(created.body.id);
      expect((await session.call('DELETE', `/workspaces/${workspaceId}/repos/${created.body.id}`)).status).toBe(204);
      const gone = await session.call('GET', `/workspaces/${workspaceId}/repos`);
      expect((gone.body as { id: string }[]).map((repository) => repository.id)).not.toContain(created.body.id);
    }
    // the calls went to both replicas
    const after = await Promise.all(REPOSITORY_REPLICAS.map(handledBy));
    expect(after.map((count, index) => count - before[index]).every((calls) => calls > 0), `repository calls per replica: ${before} → ${after}`).toBe(true);
  }, 300_000);

  it('upload to installable through a delivery replica: ?wait=published answers when both replicas serve the package', async () => {
    const seconds: number[] = [];
    for (let i = 1; i <= 8; i++) {
      const file = await buildDeb({ name: 'cluster-latency', version: `1.0.${i}`, arch: 'all' }, work);
      const started = performance.now();
      expect((await upload(deb.id, file, 'debian/bookworm', true)).status).toBe(201);
      seconds.push((performance.now() - started) / 1000);
    }
    const root = await aptThrough('delivery-2');
    expect((await runInRoot(root, 'apt-cache policy cluster-latency')).stdout).toContain('Candidate: 1.0.8');
    console.log(`upload -> installable through every delivery replica: p50 ${percentile(seconds, 50).toFixed(2)} s, max ${Math.max(...seconds).toFixed(2)} s (${seconds.length} uploads)`);
  }, 300_000);

  it('with one delivery replica killed, the gateways stay ready and apt keeps its answers through the apt port', async () => {
    const auth = { authorization: `Basic ${Buffer.from(`${deb.token}:`).toString('base64')}` };
    cluster.kill('delivery-2', 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const gateway of ['gateway-1', 'gateway-2'] as const) {
      const health = await fetch(`${cluster.process(gateway).url}/api/actuator/health`);
      expect({ gateway, status: health.status, body: await health.json() }).toMatchObject({ gateway, status: 200, body: { components: { delivery: 'UP' } } });
    }
    for (let i = 0; i < 10; i++) {
      expect((await fetch(`${deb.snippets.repositoryUrl}/debian/dists/bookworm/InRelease`, { headers: auth })).status).toBe(200);
    }
    await cluster.healthy('delivery-2');
    expect(cluster.process('delivery-2').restarts()).toBe(1);
  }, 180_000);

  it('a delivery replica restarted while signing and token hang, then both killed: apt and dnf clients fetching through the apt port get no 401, 404 or 5xx, keys included', async () => {
    expect((await upload(deb.id, await buildDeb({ name: 'cluster-restart', version: '1.0.0', arch: 'all' }, work), 'debian/bookworm', true)).status).toBe(201);
    expect((await upload(rpm.id, await buildRpm({ name: 'cluster-restart', version: '1.0.0', release: '1', arch: 'noarch' }, work), 'el/9', true)).status).toBe(201);
    const probes = [
      ...(await repositoryProbes(deb.snippets.repositoryUrl, 'DEB', deb.token, 'cluster-restart')),
      ...(await repositoryProbes(rpm.snippets.repositoryUrl, 'RPM', rpm.token, 'cluster-restart')),
    ];
    const loop = startFetchLoop(probes);
    const figures: string[] = [];
    /** kill -9, then wait until the cluster started it again and every probe was served twice since */
    const killAndWait = async (name: ClusterProcessName) => {
      const restartsBefore = cluster.process(name).restarts();
      const killedAt = Date.now();
      cluster.kill(name, 'SIGKILL');
      await waitFor(`${name} to be started again`, async () => (cluster.process(name).restarts() > restartsBefore ? true : undefined), { timeoutMs: 30_000, intervalMs: 50 });
      await cluster.healthy(name);
      const healthyAt = Date.now();
      await loop.servedSince(healthyAt, 2);
      figures.push(`${name} healthy again ${((healthyAt - killedAt) / 1000).toFixed(1)} s after kill -9`);
    };
    let servedBefore: number;
    try {
      await loop.servedSince(0, 2);
      servedBefore = Date.now();
      // stopped, not killed: a call hangs instead of failing fast, so any key the restarted
      // replica asked signing for, or any token it asked the token module about (its verdicts
      // start empty), would show as a failed fetch
      cluster.kill('signing', 'SIGSTOP');
      cluster.kill('token', 'SIGSTOP');
      try {
        await killAndWait('delivery-1');
        // the restarted replica itself answers every probe while both still hang (through the
        // apt port, the other replica could have answered them all)
        const direct = await Promise.all(
          probes.map(async (probe) => {
            const answer = await fetch(throughReplica(probe.url, 'delivery-1'), { headers: probe.headers, signal: AbortSignal.timeout(5_000) }).catch((error: Error) => error);
            return `${probe.url}: ${answer instanceof Response ? answer.status : answer.name}`;
          }),
        );
        expect(direct).toEqual(probes.map((probe) => `${probe.url}: 200`));
      } finally {
        cluster.kill('signing', 'SIGCONT');
        cluster.kill('token', 'SIGCONT');
      }
      await killAndWait('signing');
      await killAndWait('token');
    } finally {
      await loop.stop();
    }
    const fetched = loop.outcomes.filter((outcome) => outcome.at >= servedBefore);
    console.log(`${probes.length} probes, ${fetched.length} fetches through the apt port (${fetched.filter((o) => !o.ok && o.down).length} connections lost); ${figures.join('; ')}`);
    expect(loop.failuresSince(servedBefore)).toEqual([]);
  }, 300_000);

  it('kill -9 of a delivery replica and of repository during 50 uploads: every acknowledged upload installs, InRelease verifies, no 5xx outlasts the restarts', async () => {
    const files = await Promise.all(Array.from({ length: 50 }, (_, i) => buildDeb({ name: `cluster-burst-${i}`, version: '1.0.0', arch: 'all' }, work)));
    // apt clients keep asking the apt port (the proxy, as a Kubernetes Service) all along
    const auth = { authorization: `Basic ${Buffer.from(`${deb.token}:`).toString('base64')}` };
    const failures: { at: number; what: string; status: number }[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const status = await fetch(`${deb.snippets.repositoryUrl}/debian/dists/bookworm/InRelease`, { headers: auth }).then((r) => (r.body?.cancel(), r.status), () => 599);
        if (status >= 500) failures.push({ at: Date.now(), what: 'InRelease', status });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const acknowledged: string[] = [];
    const restartsBefore = { delivery: cluster.process('delivery-1').restarts(), repository: cluster.process('repository-1').restarts() };
    let killedAt = 0;
    let next = 0;
    const uploader = async () => {
      while (next < files.length) {
        const index = next++;
        if (index === 10 && !killedAt) {
          killedAt = Date.now();
          cluster.kill('delivery-1', 'SIGKILL');
          cluster.kill('repository-1', 'SIGKILL');
        }
        // as a CI job would: a 5xx is tried again; a 409 after a retry means the first try was stored
        for (let attempt = 1; ; attempt++) {
          const answer = await upload(deb.id, files[index], 'debian/bookworm', false).catch(() => ({ status: 599, body: undefined }));
          if (answer.status === 201 || (answer.status === 409 && attempt > 1)) {
            acknowledged.push(`cluster-burst-${index}`);
            break;
          }
          if (answer.status < 500) throw new Error(`upload ${index} answered ${answer.status}`);
          failures.push({ at: Date.now(), what: `upload ${index}`, status: answer.status });
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    };
    await Promise.all([uploader(), uploader(), uploader()]);
    await cluster.healthy('delivery-1');
    await cluster.healthy('repository-1');
    const healthyAgainAt = Date.now();
    const window = failures.length ? `${((Math.max(...failures.map((f) => f.at)) - Math.min(...failures.map((f) => f.at))) / 1000).toFixed(1)} s` : 'none';
    console.log(
      `restarted after kill -9: delivery-1 and repository healthy again ${((healthyAgainAt - killedAt) / 1000).toFixed(1)} s after the kill; ${acknowledged.length}/50 uploads acknowledged; ` +
        `5xx seen: ${failures.filter((f) => f.what === 'InRelease').length} InRelease, ${failures.filter((f) => f.what !== 'InRelease').length} uploads, over ${window}`,
    );
    polling = false;
    await poller;

    // a 5xx only while the killed processes were down, never after they were back
    expect(failures.filter((failure) => failure.at < killedAt || failure.at > healthyAgainAt + 1_000)).toEqual([]);
    expect(cluster.process('delivery-1').restarts()).toBe(restartsBefore.delivery + 1);
    expect(cluster.process('repository-1').restarts()).toBe(restartsBefore.repository + 1);
    expect(acknowledged).toHaveLength(50);

    for (const replica of DELIVERY_REPLICAS) {
      const root = await aptThrough(replica);
      // publication resumes after the restarts: wait until this replica lists every acknowledged package
      const deadline = Date.now() + 180_000;
      let missing = acknowledged;
      while (missing.length > 0 && Date.now() < deadline) {
        await aptGet(root, ['update']);
        const listed = (await runInRoot(root, 'apt-cache pkgnames cluster-burst-')).stdout.split('\n');
        missing = acknowledged.filter((name) => !listed.includes(name));
        if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      expect({ replica, missing }).toEqual({ replica, missing: [] });
      const installed = await aptGet(root, ['install', '-y', ...acknowledged]);
      expect(installed.code, `${replica}: ${installed.stderr}`).toBe(0);
      await verifyInRelease(replica);
    }

    // repository-2 published too (the builds are shared, and it went on while repository-1 was down), and no generation twice
    const log = new Database(sqliteEventStoreFile(join(work, 'cluster', 'repository'), 'repository'), { readonly: true });
    try {
      const published = log
        .prepare(`SELECT stream, json_extract(data, '$.generation') AS generation, json_extract(metadata, '$.publisher') AS publisher FROM events WHERE type = 'IndexPublished'`)
        .all() as { stream: string; generation: number; publisher: string }[];
      expect(new Set(published.map((publication) => publication.publisher.split('/')[0]))).toContain('repository-2');
      expect(new Set(published.map((publication) => `${publication.stream}@${publication.generation}`)).size).toBe(published.length);
    } finally {
      log.close();
    }
  }, 900_000);
});
