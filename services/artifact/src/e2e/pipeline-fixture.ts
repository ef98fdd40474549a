import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { formatDistribution } from '@packyard/formats';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { createChannel, createClientFactory, Metadata, type CallOptions, type ClientMiddlewareCall } from 'nice-grpc';
import { CALLER_METADATA_KEY, serviceCaller } from '@packyard/platform';
import { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import type { IndexFile, IndexPublished } from '@packyard/proto/packyard/repository/v1/events';
import { manifestFiles } from '@packyard/testing/publication-manifest';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import type { ApiSession } from '@packyard/testing/api-session';
import type { RunningPackyard } from '@packyard/testing';

export const run = promisify(execFile);

/**
 * POSTs a multipart upload the way the console does; `distributionFirst` puts the field
 * before the file. Several files (a source package's .dsc and its tarballs) go as several
 * `file` parts.
 */
export async function upload(
  packyard: RunningPackyard,
  session: ApiSession,
  path: string,
  files: { name: string; bytes: Uint8Array } | { name: string; bytes: Uint8Array }[],
  distribution: string | undefined,
  { distributionFirst = false, wait = true } = {},
) {
  const form = new FormData();
  if (distributionFirst && distribution !== undefined) form.append('distribution', distribution);
  for (const file of [files].flat()) form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  if (!distributionFirst && distribution !== undefined) form.append('distribution', distribution);
  const response = await fetch(`${packyard.url}/api/v1${path}/upload${wait ? '?wait=published' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.bearer}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** every file under the blob store, relative: "nothing stored" means this list did not change */
export async function storedFiles(packyard: RunningPackyard): Promise<string[]> {
  const root = join(packyard.dataDir, 'blobs');
  const walk = async (dir: string): Promise<string[]> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)])));
    return nested.flat();
  };
  return (await walk(root)).map((file) => relative(root, file)).sort();
}

/** the module-internal gRPC services, as the delivery module calls them (the way it reads publications) */
export function internalClients(packyard: RunningPackyard) {
  const channel = createChannel(packyard.grpcAddress);
  const assertions = packyard.callerAssertions();
  // a fresh assertion per call: a suite may outlive one assertion's minute
  const factory = createClientFactory().use(async function* asDelivery<Req, Res>(call: ClientMiddlewareCall<Req, Res>, options: CallOptions) {
    const metadata = Metadata(options.metadata).set(CALLER_METADATA_KEY, await assertions.assert(serviceCaller('delivery')));
    return yield* call.next(call.request, { ...options, metadata });
  });
  const publishing = factory.create(PublishingServiceDefinition, channel);
  const signing = factory.create(SigningServiceDefinition, channel);
  return {
    publishing,
    signing,
    close: () => channel.close(),
    /** the current publication of a distribution, with the files its manifest lists */
    async current(repositoryId: string, distribution: string): Promise<PublishedGeneration> {
      const { publications } = await publishing.listPublications({ repositoryId });
      const found = publications.find((publication) => publication.targetDistribution && formatDistribution(publication.targetDistribution) === distribution);
      if (!found?.manifest) throw new Error(`no publication of ${distribution}`);
      const { files } = await manifestFiles((blobKey) => readFile(join(packyard.dataDir, 'blobs', blobKey)), found.manifest);
      return { ...found, files };
    },
  };
}

export type PublishedGeneration = IndexPublished & { files: IndexFile[] };

/** the bytes of a published file, read from the blob store where the publication says it is */
export async function publishedFile(packyard: RunningPackyard, publication: PublishedGeneration, path: string): Promise<Buffer> {
  const file = publication.files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`${path} is not in generation ${publication.generation} of ${publication.targetDistribution && formatDistribution(publication.targetDistribution)}`);
  return readFile(join(packyard.dataDir, 'blobs', file.blobKey));
}

export async function scratchDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'packyard-pipeline-'));
}

export { writeFile, join };
