import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import busboy from 'busboy';
import type { FastifyPluginAsync } from 'fastify';
import { invalid, PackyardError, type Caller, type PackyardClient } from '@packyard/platform';
import { BlobTooLargeError, type BlobStore } from '@packyard/platform/blobs/index';
import { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import { PublishingServiceDefinition } from '@packyard/proto/packyard/repository/v1/publishing';
import type { GatewayOptions } from '../app';
import { PackageSchema, toPackageJson } from './packages.routes';

/** where the gateway stages an upload until artifact claims it (and removes it) */
const stagingKey = () => `staging/${randomUUID()}`;

/** `?wait=published` waits this long in total, in calls shorter than the gRPC deadline */
const PUBLICATION_WAIT_MS = 30_000;
const PUBLICATION_WAIT_CALL_MS = 8_000;

interface ReceivedForm {
  filename?: string;
  distribution: string;
  staged: boolean;
}

/**
 * Streams the multipart body: the `file` part goes straight into the blob store's staging
 * area with the size limit enforced while it flows (so at most one chunk is in memory),
 * the `distribution` field is kept whether it comes before or after the file.
 */
function receiveForm(raw: IncomingMessage, blobs: BlobStore, key: string, maxBytes: number): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: raw.headers, limits: { files: 1, fields: 8, fieldSize: 1024, parts: 16, fileSize: maxBytes + 1 } });
    } catch {
      reject(invalid('PACKYARD_UPLOAD_NOT_MULTIPART', 'The upload must be a multipart/form-data body with a "file" part'));
      return;
    }
    let filename: string | undefined;
    let distribution = '';
    let staging: Promise<unknown> | undefined;
    const fail = (error: unknown) => {
      // stop parsing and let the rest of the body drain, so the client reads the answer
      raw.unpipe(form);
      raw.resume();
      reject(error);
    };
    form.on('file', (name, stream, info) => {
      if (name !== 'file' || staging) {
        stream.resume();
        return;
      }
      filename = info.filename ?? '';
      staging = blobs.put(key, stream, { maxBytes, contentType: 'application/octet-stream', durable: false });
      staging.catch(fail);
    });
    form.on('field', (name, value) => {
      if (name === 'distribution') distribution = value;
    });
    form.on('error', fail);
    form.on('close', () => {
      if (!staging) return resolve({ filename, distribution, staged: false });
      staging.then(() => resolve({ filename, distribution, staged: true }), fail);
    });
    raw.pipe(form);
  });
}

/** polls the repository module until the package is in the published indices (false after PUBLICATION_WAIT_MS) */
export async function waitForPublication(publishing: PackyardClient<typeof PublishingServiceDefinition>, repositoryId: string, packageId: string, caller: Caller) {
  const deadline = Date.now() + PUBLICATION_WAIT_MS;
  while (Date.now() < deadline) {
    const timeoutMs = Math.min(PUBLICATION_WAIT_CALL_MS, deadline - Date.now());
    if ((await publishing.waitForPublication({ repositoryId, packageId, timeoutMs }, { caller })).published) return true;
  }
  return false;
}

/**
 * `POST /v1/workspaces/{workspaceId}/repos/{repoId}/upload` (multipart: file, distribution).
 * The gateway stages the bytes in the blob store and artifact claims them by reference
 * (the pre-signed PUT pattern): the gateway holds no package in memory, artifact reads
 * the staged file once while parsing and storing it, and the same staging area serves a
 * client that PUTs to a pre-signed URL of an S3 store.
 */
export const uploadRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients, blobs, maxUploadBytes }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const artifact = clients.client(ArtifactServiceDefinition, 'artifact');
  const publishing = clients.client(PublishingServiceDefinition, 'repository');
  // this context reads multipart bodies itself, as a stream: fastify must not buffer them
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));

  app.post(
    '/workspaces/:workspaceId/repos/:repoId/upload',
    {
      config: { scope: 'publish' },
      schema: {
        tags: ['packages'],
        security: [{ bearer: [] }],
        description:
          'Uploads a .deb (DEB repository) or .rpm (RPM repository) of at most MAX_UPLOAD_BYTES as multipart/form-data with the parts "file" and "distribution" (distro/version, e.g. ubuntu/noble), in either order. ' +
          'With ?wait=published the answer comes once the package is in the signed, published indices (202 when that takes longer than 30 s).',
        params: Type.Object({ workspaceId: Type.String(), repoId: Type.String() }),
        querystring: Type.Object({ wait: Type.Optional(Type.Literal('published')) }),
        response: { 201: PackageSchema, 202: PackageSchema },
      },
    },
    async (request, reply) => {
      const key = stagingKey();
      let form: ReceivedForm;
      try {
        form = await receiveForm(request.raw, blobs, key, maxUploadBytes);
      } catch (error) {
        await blobs.delete(key);
        if (error instanceof BlobTooLargeError) {
          reply.header('connection', 'close');
          throw new PackyardError('TOO_LARGE', 'PACKYARD_UPLOAD_TOO_LARGE', `File must be smaller than ${Math.round(maxUploadBytes / (1024 * 1024))} MB`);
        }
        throw error;
      }
      if (!form.staged) throw invalid('PACKYARD_UPLOAD_FILE_REQUIRED', 'A package file is required (multipart part "file")');
      // artifact checks extension, distribution and content, and removes the staged file in every case
      const uploaded = await artifact.claimUpload(
        { workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, stagingKey: key, filename: form.filename ?? '', distribution: form.distribution },
        { caller: request.caller },
      );
      const published = request.query.wait === 'published' ? await waitForPublication(publishing, uploaded.repositoryId, uploaded.id, request.caller) : true;
      return reply.code(published ? 201 : 202).send(toPackageJson(uploaded));
    },
  );
};
