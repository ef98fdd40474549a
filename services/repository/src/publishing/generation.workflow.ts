import { createHash } from 'node:crypto';
import { handleCommand, loadAggregate, serviceCaller, type AggregateCache, type EventSourcing, type Fence, type PackyardClient } from '@packyard/platform';
import { contentAddressedKey, type BlobStore } from '@packyard/platform/blobs/index';
import type { Advisory } from '@packyard/formats/recorded-distributions';
import { PublicationManifest, type IndexFile, type PublicationManifestRef } from '@packyard/proto/packyard/repository/v1/events';
import type { SigningServiceDefinition, SignResponse } from '@packyard/proto/packyard/signing/v1/signing';
import { ARMORED_KEY_FILE, KEYRING_FILE, mixedHash, type Distribution } from '@packyard/formats';
import type { PublishablePackage } from '../packages/publishable-package';
import { advisoriesFor, buildGeneration, IndexEntryCache, type BuildOptions, type BuiltGeneration, type PoolEntry } from './generation.builder';
import { InputsDigests } from './inputs-digest';
import { contentTypeOf, type PublishedRepository } from './publication-layout';
import { publicationDecider, type PublicationCommand, type PublicationState } from './publication.decider';
import { isPublicationIntegrationEvent, publicationStream, publicationStreamPrefix } from './publication.events';

/** the repository module calling on its own behalf */
const REPOSITORY_CALLER = serviceCaller('repository');
const MANIFEST_CONTENT_TYPE = 'application/protobuf';
/** both key files: a keyring is keys, not a signature (what `.gpg` would say) */
const KEY_CONTENT_TYPE = 'application/pgp-keys';

/** index files of a repository, content-addressed: a generation's files never change under a reader */
export const indexBlobPrefix = (repositoryId: string) => `indices/${repositoryId}`;

export interface GenerationWorkflowOptions {
  es: EventSourcing;
  blobs: BlobStore;
  signing: PackyardClient<typeof SigningServiceDefinition>;
  build?: BuildOptions;
}

/**
 * One distribution's next generation, in Pulp's phases through the module's command
 * handler and the publication decider: the metadata is stored, signed by the signing
 * module, and made current with its manifest, recorded as IndexBuilt, IndexSigned and
 * IndexPublished in one append once all of it is stored. A
 * generation built from the same inputs as the current one (packages, repository layout)
 * is not made again unless forced, so nothing is re-signed for nothing.
 */
export class GenerationWorkflow {
  /** publication aggregates as last read or written here: a stream grows by three events per build, so it is read whole once, then only what was appended since */
  private readonly publications: AggregateCache<PublicationState> = new Map();
  private readonly publicKeys = new Map<string, Promise<{ armored: string; binary: Uint8Array }>>();
  /** the signatures made over each signed file, by the object the builders handed over (signatureOver) */
  private readonly signatures = new WeakMap<Signable, Promise<SignResponse>>();
  readonly entries = new IndexEntryCache();
  private readonly manifestParts = new ManifestParts();
  private readonly inputs = new InputsDigests();

  constructor(private readonly options: GenerationWorkflowOptions) {}

  /**
   * the current generation afterwards, and whether this call made it (not when the current
   * one, whoever published it, already has these inputs); `advisories` are the repository's
   * (those applying to `target` are published, RPM)
   */
  async publish(
    repository: PublishedRepository,
    target: Distribution,
    packages: readonly PublishablePackage[],
    advisories: readonly Advisory[],
    date: Date,
    force: boolean,
    /** the repository's publishing lease: each phase is refused once another replica took it over */
    fence: Fence,
  ): Promise<{ generation: number; built: boolean }> {
    const stream = publicationStream(repository.id, target);
    const applying = repository.kind === 'RPM' ? advisoriesFor(target, advisories) : [];
    const inputsDigest = this.inputs.of(stream, repository, target, packages, applying);
    const current = await this.load(stream);
    if (!force && current.state.currentInputs === inputsDigest) return { generation: current.state.published[0].generation, built: false };
    const built = await buildGeneration(repository, target, packages, this.entries, date, applying, this.options.build);

    // every file is stored before anything points at it: the metadata while the signing module
    // signs those very bytes, the manifest's parts (the pool entries) beside them, and once the
    // signatures are in, the signatures and the manifest's root (which names every file by its
    // content address: it is computed, not read back). Nothing is recorded unless every write
    // and the signing succeed; then one append records the generation and makes it current
    const metadata = built.metadata.map((file) => addressed(repository.id, file.path, file.bytes.length, file.sha256));
    const byPath = new Map(metadata.map((file) => [file.path, file]));
    const aliases = built.aliases.map(({ path, of }) => ({ ...byPath.get(of.path)!, path }));
    // the signatures are asked for first, and the rest waits a turn of the event loop: the
    // signing module (in this process in single-node mode) then takes the request in and hands
    // its RSA to the thread pool before the stores and the manifest's parts fill the loop and
    // the pool, so the longest step runs beside them rather than after them
    const signing = this.sign(repository, built, force);
    // a refusal while the loop turns is met below, with the stores' outcome
    signing.catch(() => undefined);
    await afterPendingIo();
    const parts = this.manifestParts.of(built.pool, (bytes) => this.storeManifestBlob(repository.id, bytes));
    const keyFiles = this.keyFiles(repository.id);
    const [, , , { signed, manifest, keyFingerprint, signedAt }] = await allSettledOrThrow([
      Promise.all(built.metadata.map((file) => this.store(repository.id, file.path, file.bytes, file.sha256))),
      parts,
      keyFiles,
      signing.then(async (signatures) => {
        const signedAt = new Date().toISOString();
        const signed = signatures.map(({ path, bytes }) => addressed(repository.id, path, bytes.length, sha256Of(bytes)));
        const [, manifest] = await allSettledOrThrow([
          Promise.all(signatures.map(({ path, bytes }, index) => this.store(repository.id, path, bytes, signed[index].sha256))),
          Promise.all([parts, keyFiles]).then(([parts, keyFiles]) =>
            this.storeManifestBlob(repository.id, Buffer.from(PublicationManifest.encode({ files: [...metadata, ...signed, ...aliases], repositoryFiles: keyFiles, parts }).finish())),
          ),
        ]);
        return { signed, manifest, keyFingerprint: signatures[0].fingerprint, signedAt };
      }),
    ]);
    const { lastGeneration: generation } = await this.decide(stream, fence, {
      type: 'Publish',
      built: { files: metadata, at: date.toISOString() },
      signed: { files: signed, keyFingerprint, at: signedAt },
      publication: {
        repositoryId: repository.id,
        targetDistribution: target,
        publishedAt: new Date().toISOString(),
        kind: repository.kind,
        workspaceId: repository.workspaceId,
        workspaceSlug: repository.workspaceSlug,
        repositoryName: repository.name,
        ownerId: repository.ownerId,
        manifest,
        // packages, not pool files: a source package is its .dsc and the files it lists
        packageCount: packages.length,
        inputsDigest,
      },
    });
    return { generation, built: true };
  }

  /** a key roll: the next build signs with the keys that sign now */
  forgetKey(repositoryId: string): void {
    this.publicKeys.delete(repositoryId);
  }

  forget(repositoryId: string): void {
    this.publicKeys.delete(repositoryId);
    this.entries.forgetRepository(repositoryId);
    for (const stream of this.publications.keys()) if (stream.startsWith(publicationStreamPrefix(repositoryId))) this.publications.delete(stream);
  }

  /**
   * the stream as stored now: what this replica wrote last, brought up to date with what other
   * replicas published since (under the lease nobody else writes until the build ends)
   */
  private async load(stream: string): Promise<{ state: PublicationState; version: number }> {
    const loaded = await loadAggregate(this.options.es.events, stream, publicationDecider, this.publications.get(stream));
    this.publications.set(stream, loaded);
    return loaded;
  }

  private async decide(stream: string, fence: Fence, command: PublicationCommand): Promise<PublicationState> {
    const result = await handleCommand(this.options.es.events, stream, publicationDecider, command, {
      cache: this.publications,
      isIntegration: isPublicationIntegrationEvent,
      fence,
      // which replica wrote it, under which lease epoch
      metadata: { causation: 'publisher', publisher: fence.holder, leaseEpoch: fence.epoch },
    });
    return result.state;
  }

  /** stores a file of the generation under its content address (`sha256` when the builder computed it already) */
  private async store(repositoryId: string, path: string, bytes: Buffer, sha256 = sha256Of(bytes)): Promise<IndexFile> {
    const file = addressed(repositoryId, path, bytes.length, sha256);
    // most files of a generation (empty components and architectures, the key) are the
    // previous generation's bytes: a durable write (two fsyncs) saved per file
    if (await this.options.blobs.head(file.blobKey)) return file;
    const info = await this.options.blobs.putBytesContentAddressed(indexBlobPrefix(repositoryId), bytes, { contentType: file.contentType });
    // the manifest and the events name the address before the write ends: a wrong digest must not go unseen
    if (info.key !== file.blobKey) throw new Error(`${path} was stored as ${info.key}, not at the address ${file.blobKey} it was named by`);
    return file;
  }

  /** a manifest's root or one of its parts (ManifestParts), content-addressed beside the index files: IndexPublished names the root */
  private async storeManifestBlob(repositoryId: string, bytes: Buffer): Promise<PublicationManifestRef> {
    // a part stored by a build before this process started is not written again
    const { key: blobKey, sha256, size } = await this.options.blobs.putBytesContentAddressed(indexBlobPrefix(repositoryId), bytes, { contentType: MANIFEST_CONTENT_TYPE });
    return { blobKey, sha256, size };
  }

  /** the repository's public keys as the files the edge serves beside its distributions */
  private async keyFiles(repositoryId: string): Promise<IndexFile[]> {
    const { armored, binary } = await this.publicKey(repositoryId);
    const files = await Promise.all([this.store(repositoryId, ARMORED_KEY_FILE, Buffer.from(armored, 'utf8')), this.store(repositoryId, KEYRING_FILE, Buffer.from(binary))]);
    return files.map((file) => ({ ...file, contentType: KEY_CONTENT_TYPE }));
  }

  /**
   * InRelease + Release.gpg over the Release (DEB); repomd.xml.asc over each repomd.xml (the
   * binary and the source packages' repository) and the key beside it (RPM)
   */
  private async sign(repository: PublishedRepository, built: BuiltGeneration, force: boolean): Promise<{ path: string; bytes: Buffer; fingerprint: string }[]> {
    const modes = repository.kind === 'DEB' ? ['clearsign', 'detached'] : ['detached-armored'];
    const signed = await Promise.all(
      built.signables.map(async (signable) => {
        const result = await this.signatureOver(repository.id, signable, modes, force);
        const fingerprint = result.keyFingerprint;
        if (repository.kind === 'DEB') {
          const dir = signable.path.slice(0, signable.path.lastIndexOf('/'));
          return [
            { path: `${dir}/InRelease`, bytes: Buffer.from(result.clearsigned), fingerprint },
            { path: `${dir}/Release.gpg`, bytes: Buffer.from(result.detached), fingerprint },
          ];
        }
        return [
          { path: `${signable.path}.asc`, bytes: Buffer.from(result.detachedArmored), fingerprint },
          { path: `${signable.path}.key`, bytes: Buffer.from((await this.publicKey(repository.id)).armored, 'utf8'), fingerprint },
        ];
      }),
    );
    return signed.flat();
  }

  /**
   * the signing module's signatures over a file, or the ones it made before over the same
   * object: the builders hand over the same object while its bytes stay the same (an
   * unchanged repomd.xml, IndexEntryCache.unchangedRepomd), which is then not signed again,
   * and kept as long as they keep it. A forced build (a key change) signs everything anew.
   */
  private signatureOver(repositoryId: string, signable: Signable, modes: string[], force: boolean): Promise<SignResponse> {
    const kept = force ? undefined : this.signatures.get(signable);
    if (kept) return kept;
    const response = this.options.signing.sign({ repositoryId, data: signable.bytes, modes }, { caller: REPOSITORY_CALLER });
    this.signatures.set(signable, response);
    response.catch(() => this.signatures.get(signable) === response && this.signatures.delete(signable));
    return response;
  }

  private publicKey(repositoryId: string): Promise<{ armored: string; binary: Uint8Array }> {
    let key = this.publicKeys.get(repositoryId);
    if (!key) {
      key = this.options.signing.getPublicKey({ repositoryId }, { caller: REPOSITORY_CALLER }).then(({ armored, binary }) => ({ armored, binary }));
      this.publicKeys.set(repositoryId, key);
      key.catch(() => this.publicKeys.delete(repositoryId));
    }
    return key;
  }
}

/** a file the builders hand over for signing */
type Signable = BuiltGeneration['signables'][number];

const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** a file of the generation as the events and the manifest name it: by the content address it is (or will be) stored at */
const addressed = (repositoryId: string, path: string, size: number, sha256: string): IndexFile => ({
  path,
  blobKey: contentAddressedKey(indexBlobPrefix(repositoryId), sha256),
  size,
  sha256,
  contentType: contentTypeOf(path),
  package: false,
});

/** resolves after the event loop has polled for I/O once more: what arrived meanwhile (a request on a socket) is taken in first */
const afterPendingIo = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Promise.all that settles only when every promise has: a phase refused (its lease lost)
 * throws once the writes beside it are done, not while they still write
 */
async function allSettledOrThrow<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** pool entries in a manifest part, on average (see ManifestParts) */
const PART_ENTRIES = 1024;

/**
 * The manifest's pool entries in parts, each stored content-addressed: a part ends after an
 * entry whose path hashes to a multiple of PART_ENTRIES, so an added, removed or changed
 * package changes the part it falls in and no other. The builders hand over the same entry
 * objects while a package is unchanged, so a part whose entries are the same objects as a
 * part of an earlier build is that part, with nothing encoded, joined or written: one more
 * package in 100,000 writes one part of about 300 KB, not a 30 MB manifest.
 */
class ManifestParts {
  private readonly entries = new WeakMap<PoolEntry, { bytes: Buffer; endsPart: boolean }>();
  /** parts made before, by their first entry */
  private readonly parts = new WeakMap<PoolEntry, { entries: readonly PoolEntry[]; ref: Promise<PublicationManifestRef> }>();

  of(pool: readonly PoolEntry[], store: (bytes: Buffer) => Promise<PublicationManifestRef>): Promise<PublicationManifestRef[]> {
    const parts: Promise<PublicationManifestRef>[] = [];
    let start = 0;
    for (let index = 0; index < pool.length; index++) {
      if (this.entry(pool[index]).endsPart || index === pool.length - 1) {
        parts.push(this.part(pool.slice(start, index + 1), store));
        start = index + 1;
      }
    }
    return Promise.all(parts);
  }

  private part(entries: readonly PoolEntry[], store: (bytes: Buffer) => Promise<PublicationManifestRef>): Promise<PublicationManifestRef> {
    const made = this.parts.get(entries[0]);
    if (made && made.entries.length === entries.length && made.entries.every((entry, index) => entry === entries[index])) return made.ref;
    const ref = store(Buffer.concat(entries.map((entry) => this.entry(entry).bytes)));
    const part = { entries, ref };
    this.parts.set(entries[0], part);
    ref.catch(() => this.parts.get(entries[0]) === part && this.parts.delete(entries[0]));
    return ref;
  }

  /** an entry's bytes as the manifest's `files` field holds it (a repeated field is its elements' encodings one after another) */
  private entry(entry: PoolEntry): { bytes: Buffer; endsPart: boolean } {
    let known = this.entries.get(entry);
    if (!known) {
      const { path, file } = entry;
      const bytes = Buffer.from(PublicationManifest.encode({ files: [{ path, ...file, contentType: contentTypeOf(path), package: true }], repositoryFiles: [], parts: [] }).finish());
      known = { bytes, endsPart: mixedHash(path) % PART_ENTRIES === 0 };
      this.entries.set(entry, known);
    }
    return known;
  }
}
