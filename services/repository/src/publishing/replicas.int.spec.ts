import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, handleCommand, LeaseLostError, type PackyardClient, type RecordedEvent } from '@packyard/platform';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { publisherLease } from './build-scheduler';
import { GenerationWorkflow } from './generation.workflow';
import { publicationDecider } from './publication.decider';
import { publicationStream, publicationStreamPrefix } from './publication.events';
import { seedRepository, startPublishingRig, syntheticDeb, type PublishingRig } from './testing/publishing-rig';

const publishedEvents = async (rig: PublishingRig): Promise<RecordedEvent[]> =>
  (await rig.es.events.readAll(0, 100_000)).filter((event) => event.type === 'IndexPublished');

/** Two replicas of the repository module's publishing on one store (two SQLite connections to the same files), as two processes would share it. */
describe('publishing replicas sharing one store', () => {
  let dataDir: string;
  const rigs: PublishingRig[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'packyard-replicas-'));
  });
  afterEach(async () => {
    for (const rig of rigs.splice(0).reverse()) await rig.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** replicas A and B on one store (one signing key ring), and an empty DEB repository published to ubuntu/noble */
  const twoReplicasOfOneRepository = async (id: string, name: string) => {
    const a = await startPublishingRig(dataDir, { holder: 'replica-a' });
    rigs.push(a);
    const b = await startPublishingRig(dataDir, { holder: 'replica-b', signing: a.signing });
    rigs.push(b);
    await seedRepository(a.es, { id, kind: 'DEB', name }, []);
    const repository = { id, kind: 'DEB' as const, workspaceId: 'rig-workspace', workspaceSlug: 'rig', ownerId: 'rig-owner', name, codename: 'stable', component: 'main' };
    return { a, b, repository, target: { distro: 'ubuntu', version: 'noble' } };
  };

  it('share the repositories between them, build each change once and never publish a generation twice', { timeout: 240_000 }, async () => {
    const a = await startPublishingRig(dataDir, { holder: 'replica-a', maxBuilds: 1 });
    rigs.push(a);
    // one signing key ring for both: the module they call is the same
    const b = await startPublishingRig(dataDir, { holder: 'replica-b', maxBuilds: 1, signing: a.signing });
    rigs.push(b);
    const repositories = ['r-one', 'r-two', 'r-three', 'r-four'];
    for (const [index, id] of repositories.entries()) await seedRepository(a.es, { id, kind: 'DEB', name: `shared-${index}` }, [syntheticDeb(id, 1)]);
    await Promise.all([a.publisher.start(), b.publisher.start()]);
    await Promise.all([a.publisher.settled(), b.publisher.settled()]);

    const published = await publishedEvents(a);
    const streams = new Set(published.map((event) => event.stream));
    // every distribution of every repository is current (each repository shows 14 or more)
    for (const id of repositories) expect([...streams].filter((stream) => stream.startsWith(publicationStreamPrefix(id)))).not.toHaveLength(0);
    // each distribution built once: the replica that came second found its inputs published
    expect(published).toHaveLength(streams.size);
    expect([...new Set(published.map((event) => event.metadata?.publisher))].sort()).toEqual(['replica-a', 'replica-b']);
    // a repository is one replica's: its distributions were all built under one lease
    for (const id of repositories) {
      const writers = new Set(published.filter((event) => event.stream.startsWith(publicationStreamPrefix(id))).map((event) => event.metadata?.publisher));
      expect({ id, writers: writers.size }).toEqual({ id, writers: 1 });
    }
    // given back after each build
    for (const id of repositories) expect((await a.es.events.leases.read(publisherLease(id))).holder).toBe('');
  });

  it('a repository another replica is building waits for it and is then found published, while the other repositories go on', { timeout: 240_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // A's signing of r-slow hangs until released
    let keys!: PackyardClient<typeof SigningServiceDefinition>;
    const slowSigning = {
      sign: async (request: { repositoryId: string }, options: never) => {
        if (request.repositoryId === 'r-slow') await held;
        return keys.sign(request as never, options);
      },
      getPublicKey: (request: never, options: never) => keys.getPublicKey(request, options),
    } as unknown as PackyardClient<typeof SigningServiceDefinition>;
    const a = await startPublishingRig(dataDir, { holder: 'replica-a', signing: slowSigning });
    rigs.push(a);
    keys = a.signing;
    await seedRepository(a.es, { id: 'r-slow', kind: 'DEB', name: 'slow' }, [syntheticDeb('r-slow', 1)]);
    await a.publisher.start();
    // replica A holds r-slow's lease, stuck in signing
    await expect.poll(async () => (await a.es.events.leases.read(publisherLease('r-slow'))).holder, { timeout: 60_000 }).toBe('replica-a');

    const b = await startPublishingRig(dataDir, { holder: 'replica-b', signing: a.signing });
    rigs.push(b);
    await seedRepository(a.es, { id: 'r-quick', kind: 'DEB', name: 'quick' }, [syntheticDeb('r-quick', 1)]);
    await b.publisher.start();
    // B publishes the other repository while r-slow is held by A; A's slot for it was free too
    await expect.poll(async () => (await publishedEvents(b)).filter((event) => event.stream.startsWith(publicationStreamPrefix('r-quick'))).length, { timeout: 120_000 }).toBeGreaterThan(0);
    expect((await publishedEvents(b)).filter((event) => event.stream.startsWith(publicationStreamPrefix('r-slow')))).toEqual([]);

    release();
    await Promise.all([a.publisher.settled(), b.publisher.settled()]);
    const slow = (await publishedEvents(b)).filter((event) => event.stream.startsWith(publicationStreamPrefix('r-slow')));
    expect(slow.length).toBeGreaterThan(0);
    // B waited for the lease, then found A's generations current and built nothing of its own
    expect(new Set(slow.map((event) => event.metadata?.publisher))).toEqual(new Set(['replica-a']));
  });

  it('a replica whose last view of a distribution is older than the other replica\'s generation finds that generation current and builds nothing', { timeout: 240_000 }, async () => {
    const { a, b, repository, target } = await twoReplicasOfOneRepository('r-taken', 'taken');
    const [one, two] = [syntheticDeb('r-taken', 1), syntheticDeb('r-taken', 2)];
    const inTurn = async (rig: PublishingRig, workflow: GenerationWorkflow, packages: ReturnType<typeof syntheticDeb>[]) => {
      const lease = (await rig.es.events.leases.acquire(publisherLease('r-taken'), rig === a ? 'replica-a' : 'replica-b', 60_000))!;
      try {
        return await workflow.publish(repository, target, packages, [], new Date(), false, lease);
      } finally {
        await rig.es.events.leases.release(lease);
      }
    };
    const onA = new GenerationWorkflow({ es: a.es, blobs: a.blobs, signing: a.signing });
    const onB = new GenerationWorkflow({ es: b.es, blobs: b.blobs, signing: b.signing });
    expect(await inTurn(a, onA, [one])).toEqual({ generation: 1, built: true });
    // B publishes the second package while A's last view is its own generation 1
    expect(await inTurn(b, onB, [one, two])).toEqual({ generation: 2, built: true });
    // A is asked to build the same package set (it saw the same upload): B's generation 2 has it
    expect(await inTurn(a, onA, [one, two])).toEqual({ generation: 2, built: false });
    const published = (await publishedEvents(a)).filter((event) => event.stream === publicationStream('r-taken', { distro: 'ubuntu', version: 'noble' }));
    expect(published.map((event) => event.metadata?.publisher)).toEqual(['replica-a', 'replica-b']);
  });

  it('refuses the phases of a replica that lost its lease while it was building (fencing), and numbers the new holder\'s generation after the last one', { timeout: 240_000 }, async () => {
    const { a, b, repository, target } = await twoReplicasOfOneRepository('r-fenced', 'fenced');
    const stream = publicationStream('r-fenced', { distro: 'ubuntu', version: 'noble' });

    // A takes a short lease and stalls in signing past its expiry (a pause, with no renewal)
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const stalled = { ...a.signing, sign: async (...args: never[]) => (await held, (a.signing.sign as (...a: never[]) => unknown)(...args)), getPublicKey: a.signing.getPublicKey.bind(a.signing) } as unknown as PackyardClient<typeof SigningServiceDefinition>;
    const zombie = new GenerationWorkflow({ es: a.es, blobs: a.blobs, signing: stalled });
    const oldLease = (await a.es.events.leases.acquire(publisherLease('r-fenced'), 'replica-a', 200))!;
    const zombieBuild = zombie.publish(repository, target, [], [], new Date(), true, oldLease);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // B takes the expired lease and publishes generation 1
    const newLease = (await b.es.events.leases.acquire(publisherLease('r-fenced'), 'replica-b', 60_000))!;
    expect(newLease.epoch).toBe(oldLease.epoch + 1);
    const current = new GenerationWorkflow({ es: b.es, blobs: b.blobs, signing: b.signing });
    expect(await current.publish(repository, target, [syntheticDeb('r-fenced', 1)], [], new Date(), false, newLease)).toEqual({ generation: 1, built: true });

    // A wakes up: its first append is refused, nothing of it is written
    release();
    await expect(zombieBuild).rejects.toBeInstanceOf(LeaseLostError);
    const events = await b.es.events.readStream(stream);
    expect(events.map((event) => [event.type, event.metadata?.publisher])).toEqual([
      ['IndexBuilt', 'replica-b'],
      ['IndexSigned', 'replica-b'],
      ['IndexPublished', 'replica-b'],
    ]);

    // the other check: two writers deciding on the same version of the stream cannot both write
    // generation 2; the append of the one that read it stale is refused and decided again
    const now = new Date().toISOString();
    const publication = { repositoryId: 'r-fenced', targetDistribution: target, publishedAt: now, kind: 'DEB', workspaceId: 'w', workspaceSlug: 'w', repositoryName: 'fenced', ownerId: 'u', packageCount: 0, inputsDigest: 'd' };
    const builtBy = async (rig: PublishingRig) =>
      handleCommand(rig.es.events, stream, publicationDecider, { type: 'Publish', built: { files: [], at: now }, signed: { files: [], keyFingerprint: 'F', at: now }, publication }, { fence: newLease });
    await expect(a.es.events.append(stream, 1, [{ id: randomUUID(), type: 'IndexBuilt', data: {} }], { fence: newLease })).rejects.toBeInstanceOf(ConcurrencyError);
    const generations = await Promise.all([builtBy(a), builtBy(b)]);
    expect(generations.map((result) => result.state.lastGeneration).sort()).toEqual([2, 3]);
  });
});
