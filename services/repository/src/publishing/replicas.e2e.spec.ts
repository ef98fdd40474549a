import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteEventStoreFile } from '@packyard/platform/eventsourcing/sqlite-event-store.adapter';
import { craftDeb, startPackyard, validControlText, waitFor, type RunningPackyard } from '@packyard/testing';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';

// Two processes of the program on one data directory (embedded adapters: the SQLite event
// store, bus and read models shared, as the cluster shares MongoDB): the first runs every
// module, the second only repository, with the other modules reached over gRPC in the first.
// Both follow the repository module's log and share the builds by a lease per repository.

const REPOSITORIES = 6;
const REPLICA_SETTINGS = { PUBLISH_REPOSITORIES_AT_ONCE: '1', PUBLISH_LEASE_S: '2' };

interface Publication {
  stream: string;
  generation: number;
  publisher: string;
  position: number;
}

describe('two repository processes sharing one store', () => {
  let first: RunningPackyard;
  let second: RunningPackyard;
  let session: ApiSession;
  let log: Database.Database;
  let workspaceId: string;
  const repositories: { id: string; name: string; auth: string }[] = [];

  beforeAll(async () => {
    first = await startPackyard({ env: { ...REPLICA_SETTINGS, REPOSITORY_REPLICA_ID: 'replica-1' }, timeoutMs: 120_000 });
    second = await startPackyard({
      targets: ['repository'],
      dataDir: first.dataDir,
      env: { ...REPLICA_SETTINGS, REPOSITORY_REPLICA_ID: 'replica-2', SIGNING_GRPC_ADDR: first.grpcAddress, WORKSPACE_GRPC_ADDR: first.grpcAddress },
      timeoutMs: 120_000,
    });
    log = new Database(sqliteEventStoreFile(first.dataDir, 'repository'), { readonly: true });
    session = await registerUser(first);
    const workspace = (await session.call('POST', '/workspaces', { name: 'Replicas', slug: 'replicas', description: '' })).body;
    workspaceId = workspace.id;
    for (let index = 0; index < REPOSITORIES; index++) {
      const name = `shared-${index}`;
      const repository = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name, kind: 'DEB' })).body;
      const { token } = (await session.call('POST', `/repos/${repository.id}/tokens`, { name: 'machine' })).body;
      repositories.push({ id: repository.id, name, auth: `Basic ${Buffer.from(`${token}:`).toString('base64')}` });
    }
  }, 300_000);

  afterAll(async () => {
    log?.close();
    await second?.stop();
    await first?.dispose();
  });

  const publications = (): Publication[] =>
    log
      .prepare(
        `SELECT stream, json_extract(data, '$.generation') AS generation, json_extract(metadata, '$.publisher') AS publisher, position
         FROM events WHERE type = 'IndexPublished' ORDER BY position`,
      )
      .all() as Publication[];
  const replicaOf = (publication: Publication) => publication.publisher.split('/')[0];
  const ofRepository = (id: string) => (publication: Publication) => publication.stream.startsWith(`publication-${id}_`);

  const upload = async (repositoryId: string, name: string) => {
    const form = new FormData();
    form.set('distribution', 'ubuntu/noble');
    form.set('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText(name, '1.0-1', 'amd64') }))]), `${name}_1.0-1_amd64.deb`);
    const answer = await fetch(`${first.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
    expect(answer.status).toBe(201);
  };

  /** every repository's Packages at the edge lists the package */
  const servedEverywhere = (name: string) =>
    waitFor(
      `${name} in every repository's Packages`,
      async () => {
        for (const repository of repositories) {
          const response = await fetch(`${first.url}/deb/replicas/${repository.name}/ubuntu/dists/noble/main/binary-amd64/Packages`, { headers: { authorization: repository.auth } });
          if (response.status !== 200 || !(await response.text()).includes(`Package: ${name}\n`)) return undefined;
        }
        return true;
      },
      { timeoutMs: 180_000 },
    );

  const noGenerationTwice = () => {
    const seen = publications().map((publication) => `${publication.stream}@${publication.generation}`);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
  };

  it('publishes uploads into every repository, both processes building some, never one generation twice', { timeout: 300_000 }, async () => {
    await Promise.all(repositories.map((repository) => upload(repository.id, 'replicated-one')));
    await servedEverywhere('replicated-one');
    const replicas = new Set(publications().map(replicaOf));
    expect([...replicas].sort()).toEqual(['replica-1', 'replica-2']);
    noGenerationTwice();
  });

  it('after a kill -9 of one process mid-run, the other publishes every repository, the ones the killed one held included', { timeout: 300_000 }, async () => {
    const lastPosition = () => (log.prepare('SELECT MAX(position) AS position FROM events').get() as { position: number }).position;
    const before = lastPosition();
    await Promise.all(repositories.map((repository) => upload(repository.id, 'replicated-two')));
    // the second process is building (it holds a repository's lease): kill it there
    const held = await waitFor(
      'the second process to hold a repository',
      async () => log.prepare(`SELECT name, epoch FROM leases WHERE holder LIKE 'replica-2/%' AND expires_at > ?`).get(Date.now()) as { name: string; epoch: number } | undefined,
      { timeoutMs: 120_000, intervalMs: 10 },
    );
    second.child.kill('SIGKILL');
    await second.stop();
    const killedAt = lastPosition();

    await servedEverywhere('replicated-two');
    const repositoryId = held.name.slice('publisher-'.length);
    // each upload touched one distribution, published once in all: by one replica or the other, never both
    // (other distributions may still be getting their first generation, from the repositories' creation)
    const after = publications().filter((publication) => publication.position > before && publication.stream.endsWith('_ubuntu_noble'));
    expect(after).toHaveLength(REPOSITORIES);
    const [ofHeld] = after.filter(ofRepository(repositoryId));
    // the killed process's build, unless it got as far as its IndexPublished, was done again by the survivor once the lease expired
    expect(replicaOf(ofHeld)).toBe(ofHeld.position > killedAt ? 'replica-1' : 'replica-2');
    noGenerationTwice();
    const lease = log.prepare('SELECT holder, epoch FROM leases WHERE name = ?').get(held.name) as { holder: string; epoch: number };
    if (ofHeld.position > killedAt) {
      // the lease moved on: the survivor took it with a higher epoch (and gave it back after its build)
      expect(lease.epoch).toBeGreaterThan(held.epoch);
      expect(lease.holder).not.toMatch(/^replica-2\//);
    } else {
      // the kill came in the moment between the killed process's IndexPublished and its lease's release: nothing was left to take over
      expect(lease.epoch).toBe(held.epoch);
    }
    console.log(`the killed process's build was ${ofHeld.position > killedAt ? 'taken over by the survivor' : 'recorded before the kill'}`);
  });
});
