import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import busboy from 'busboy';
import type { FastifyPluginAsync } from 'fastify';
import { invalid, PackyardError, waitUntilServed } from '@packyard/platform';
import { BlobTooLargeError, type BlobStore } from '@packyard/platform/blobs/index';
import { ArtifactServiceDefinition } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { GatewayOptions } from '../app';
import { PackageSchema, toPackageJson } from './packages.routes';

/** where the gateway stages an upload until artifact claims it (and removes it) */
export const STAGING_PREFIX = 'staging/';
const stagingKey = () => `${STAGING_PREFIX}${randomUUID()}`;

interface StagedPart {
  filename: string;
  key: string;
}

interface ReceivedForm {
  distribution: string;
  /** every `file` part, in the order received, each in its own staging object */
  files: StagedPart[];
}

const NOT_MULTIPART = 'The upload must be a multipart/form-data body with a "file" part';
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * Streams the multipart body: each `file` part goes straight into the blob store's staging
 * area with the size limit enforced while it flows (so at most one chunk is in memory);
 * the `distribution` field may come before or after the files. One distribution; several
 * `file` parts only for a Debian source package (its .dsc and the files it lists), which
 * the route checks once every part is in.
 *
 * Settles in every case, and only once every staging put has settled, so the caller's
 * deletes of the keys come last: a client that goes away mid-body, a malformed body or a
 * refused part each end the staged streams with an error, which makes the store drop its
 * temporary files and descriptors. On failure the keys staged so far are in `staged`.
 */
function receiveForm(raw: IncomingMessage, blobs: BlobStore, staged: string[], maxBytes: number): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: raw.headers, limits: { fields: 8, fieldSize: 1024, parts: 16, fileSize: maxBytes + 1 } });
    } catch {
      reject(invalid('PACKYARD_UPLOAD_NOT_MULTIPART', NOT_MULTIPART));
      return;
    }
    let distribution: string | undefined;
    const files: StagedPart[] = [];
    const streams: Readable[] = [];
    const stagings: Promise<unknown>[] = [];
    let settled = false;
    const allStaged = () => Promise.all(stagings);
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // stop parsing and let the rest of the body drain, so the client reads the answer
      raw.unpipe(form);
      raw.resume();
      // with an error, so the store's pipeline fails even when it has not started reading yet
      // (an ended stream destroyed without one leaves a pipeline waiting for ever); the
      // listener keeps a stream the store has finished with from throwing it
      for (const stream of streams) stream.on('error', () => undefined).destroy(new Error('upload refused'));
      void Promise.allSettled(stagings).then(() => reject(error));
    };
    const refuse = (code: string, message: string) => fail(invalid(code, message));
    form.on('file', (name, stream, info) => {
      if (name !== 'file' || settled) {
        stream.resume();
        return;
      }
      if (CONTROL_CHARACTER.test(info.filename ?? '')) {
        stream.resume();
        return refuse('PACKYARD_UPLOAD_BAD_FILENAME', 'The file name must not contain control characters');
      }
      const key = stagingKey();
      staged.push(key);
      files.push({ filename: info.filename ?? '', key });
      streams.push(stream);
      const staging = blobs.put(key, stream, { maxBytes, contentType: 'application/octet-stream', durable: false });
      stagings.push(staging);
      staging.catch(fail);
    });
    form.on('field', (name, value) => {
      if (name !== 'distribution') return;
      if (distribution !== undefined) return refuse('PACKYARD_UPLOAD_TWO_DISTRIBUTIONS', 'Exactly one "distribution" field is allowed');
      distribution = value;
    });
    const tooManyParts = () => refuse('PACKYARD_UPLOAD_TOO_MANY_PARTS', 'The upload has more parts than "file" and "distribution" need');
    form.on('partsLimit', tooManyParts);
    form.on('fieldsLimit', tooManyParts);
    form.on('error', (error: Error) => refuse('PACKYARD_UPLOAD_MALFORMED', `Malformed multipart body: ${error.message}`));
    form.on('close', () => {
      if (settled) return;
      allStaged().then(() => {
        if (settled) return;
        settled = true;
        resolve({ distribution: distribution ?? '', files });
      }, fail);
    });
    // a client gone mid-body ends nothing by itself: the file stream would wait for ever
    raw.on('close', () => {
      if (!raw.complete) fail(invalid('PACKYARD_UPLOAD_ABORTED', 'The upload was cut off before its end'));
    });
    raw.pipe(form);
  });
}

const isDsc = (part: StagedPart) => part.filename.toLowerCase().endsWith('.dsc');

/**
 * The package file and, for a Debian source package, the files its .dsc lists: several
 * `file` parts are a source package when exactly one of them is a .dsc; any other upload
 * has exactly one.
 */
function packageParts(files: StagedPart[]): { main: StagedPart; sourceFiles: StagedPart[] } {
  const [first] = files;
  if (!first) throw invalid('PACKYARD_UPLOAD_FILE_REQUIRED', 'A package file is required (multipart part "file")');
  if (files.length === 1) return { main: first, sourceFiles: [] };
  const dscs = files.filter(isDsc);
  if (dscs.length !== 1) {
    throw invalid('PACKYARD_UPLOAD_TWO_FILES', 'Exactly one "file" part is allowed (several only for a Debian source package: one .dsc and the files it lists)');
  }
  return { main: dscs[0], sourceFiles: files.filter((part) => part !== dscs[0]) };
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
  // this context reads multipart bodies itself, as a stream: fastify must not buffer them
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));

  app.post(
    '/workspaces/:workspaceId/repos/:repoId/upload',
    {
      config: { scope: 'publish', longBody: true },
      schema: {
        tags: ['packages'],
        security: [{ bearer: [] }],
        description:
          'Uploads a .deb, .udeb or .ddeb (DEB repository) or .rpm (RPM repository) of at most MAX_UPLOAD_BYTES as multipart/form-data with the parts "file" and "distribution" (distro/version, e.g. ubuntu/noble), in either order. ' +
          'A Debian source package is one upload with several "file" parts: its .dsc and every file the .dsc lists (orig and debian tarballs; each at most MAX_UPLOAD_BYTES), checked against the sizes and checksums the .dsc states (400 when one is missing, extra or different). ' +
          'With ?wait=published the answer comes once the package is in the signed, published indices of every distribution it belongs to and every delivery replica serves them (202 when that takes longer than 30 s).',
        params: Type.Object({ workspaceId: Type.String(), repoId: Type.String() }),
        querystring: Type.Object({ wait: Type.Optional(Type.Literal('published')) }),
        response: { 201: PackageSchema, 202: PackageSchema },
      },
    },
    async (request, reply) => {
      const staged: string[] = [];
      let form: ReceivedForm;
      let parts: ReturnType<typeof packageParts>;
      try {
        form = await receiveForm(request.raw, blobs, staged, maxUploadBytes);
        parts = packageParts(form.files);
      } catch (error) {
        await Promise.all(staged.map((key) => blobs.delete(key)));
        if (error instanceof BlobTooLargeError) {
          reply.header('connection', 'close');
          throw new PackyardError('TOO_LARGE', 'PACKYARD_UPLOAD_TOO_LARGE', `File must be smaller than ${Math.round(maxUploadBytes / (1024 * 1024))} MB`);
        }
        throw error;
      }
      // the body is in: checking and publishing may be quiet for a while, and that is not the client idling
      const { socket } = request.raw;
      socket.setTimeout(0);
      reply.raw.once('finish', () => socket.setTimeout(app.server.timeout));
      // artifact checks extension, distribution and content, and removes the staged files in every case
      const uploaded = await artifact.claimUpload(
        {
          workspaceId: request.params.workspaceId,
          repositoryId: request.params.repoId,
          stagingKey: parts.main.key,
          filename: parts.main.filename,
          distribution: form.distribution,
          sourceFiles: parts.sourceFiles.map((part) => ({ stagingKey: part.key, filename: part.filename })),
        },
        { caller: request.caller },
      );
      const published =
        request.query.wait === 'published' ? await waitUntilServed(clients, uploaded.repositoryId, uploaded.id, request.caller) : true;
      return reply.code(published ? 201 : 202).send(toPackageJson(uploaded));
    },
  );
};
