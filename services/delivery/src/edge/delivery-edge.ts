import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { EdgeHandler, EdgeReply, EdgeRequest } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import type { TrafficAccounting } from '../accounting/traffic-accounting';
import { grantsRead, type TokenVerdict, type VerdictCache } from '../auth/token-verdicts';
import type { PublishedCatalog, ServedRepository } from '../catalog/published-catalog';
import { repositoryPath, type ServedFile } from '../catalog/served-file';
import { planResponse, WHOLE_FILE } from '../http/conditional-request';
import { ARMORED_KEY_FILE, KEYRING_FILE, type PublicKeys } from '../keys/public-keys';
import type { EdgeMetrics, FileKind } from './edge-metrics';
import type { PackageBodyCache } from './package-body-cache';

export interface DeliveryEdgeOptions {
  catalog: PublishedCatalog;
  verdicts: VerdictCache;
  accounting: TrafficAccounting;
  blobs: BlobStore;
  publicKeys: PublicKeys;
  metrics: EdgeMetrics;
  /** small packages answered from memory after their first download */
  packageBodies: PackageBodyCache;
  logger: Logger;
  /** BLOBS=s3 with S3_PRESIGN_DOWNLOADS: packages are answered with a redirect to a presigned URL */
  presignDownloads?: boolean;
  /**
   * true when this process is going away with the one it depends on (an edge worker whose
   * main process died): a request it cannot answer is then cut, as by a process that is
   * down, which clients retry, instead of answered 503
   */
  goingAway?: () => boolean;
}

// apt shows an HTML body where it expects InRelease as a broken clearsign, so every
// refusal is a bare text/plain answer with a status apt and dnf report as such.
const UNAUTHORIZED_HEADERS = ['www-authenticate', 'Basic realm="Packyard"', 'content-type', 'text/plain; charset=utf-8', 'cache-control', 'no-store', 'vary', 'Authorization', 'content-length', '13'];
const NOT_FOUND_HEADERS = ['content-type', 'text/plain; charset=utf-8', 'cache-control', 'no-store', 'vary', 'Authorization', 'content-length', '10'];
const UNAUTHORIZED_BODY = Buffer.from('Unauthorized\n');
const NOT_FOUND_BODY = Buffer.from('Not found\n');
const PRESIGN_SECONDS = 300;

function decodePath(url: string): string | undefined {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * The apt/yum edge: `/deb/…` and `/rpm/…`, read by the platform's own HTTP/1.1 reader
 * (edge-http1.ts), or node:http's, before fastify.
 * Per request: one map lookup for the repository (the first request for a repository after
 * a start waits for it to be loaded), a cached token verdict, one map lookup for the file,
 * then bytes from memory or a stream from the blob store.
 */
export function deliveryEdge(options: DeliveryEdgeOptions): EdgeHandler {
  const { catalog, verdicts, accounting, blobs, publicKeys, metrics, packageBodies, logger } = options;

  const refuse = (reply: EdgeReply, status: 401 | 404 | 405 | 503, unavailable = 'Token check unavailable') => {
    metrics.request('none', status, 0);
    if (status === 401) return reply.send(401, UNAUTHORIZED_HEADERS, UNAUTHORIZED_BODY);
    if (status === 404) return reply.send(404, NOT_FOUND_HEADERS, NOT_FOUND_BODY);
    if (status === 405) return reply.send(405, ['allow', 'GET, HEAD', 'content-length', '0']);
    if (options.goingAway?.()) return reply.destroy();
    const body = Buffer.from(`${unavailable}\n`);
    return reply.send(503, ['retry-after', '1', 'content-type', 'text/plain; charset=utf-8', 'cache-control', 'no-store', 'content-length', String(body.length)], body);
  };

  /** answers `file` (authorised); returns the body bytes it sends */
  function send(request: EdgeRequest, reply: EdgeReply, file: ServedFile, kind: FileKind): number {
    const headers = request.headers;
    // most requests carry no condition and no range: they are answered whole without building the conditions
    const plan =
      headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined && headers.range === undefined
        ? WHOLE_FILE
        : planResponse({ ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'], range: headers.range, ifRange: headers['if-range'] as string | undefined }, file);
    const head = request.method === 'HEAD';
    if (plan.status === 304) {
      reply.send(304, file.notModifiedHeaders);
      metrics.request(kind, 304, 0);
      return 0;
    }
    if (plan.status === 416) {
      reply.send(416, ['content-range', `bytes */${file.size}`, 'content-length', '0', 'vary', 'Authorization']);
      metrics.request(kind, 416, 0);
      return 0;
    }
    const start = plan.status === 206 ? plan.start : 0;
    const end = plan.status === 206 ? plan.end : file.size - 1;
    const length = end - start + 1;
    const responseHeaders = plan.status === 206 ? [...file.headers, 'content-range', `bytes ${start}-${end}/${file.size}`, 'content-length', String(length)] : file.fullHeaders;
    if (head) {
      reply.send(plan.status, responseHeaders);
      metrics.request(kind, plan.status, 0);
      return 0;
    }
    // the object store sends package bytes itself; metadata stays here (it is in memory)
    if (!file.body && options.presignDownloads && blobs.presignedGet && plan.status === 200) {
      blobs.presignedGet(file.blobKey, PRESIGN_SECONDS).then(
        (location) => reply.send(302, ['location', location, 'cache-control', 'no-store', 'vary', 'Authorization', 'content-length', '0']),
        (error) => fail(reply, error, file),
      );
      metrics.request(kind, 302, 0);
      return length;
    }
    const body = file.body ?? (file.size <= packageBodies.maxFileBytes ? packageBodies.get(file.blobKey) : undefined);
    if (body) {
      reply.send(plan.status, responseHeaders, plan.status === 206 ? body.subarray(start, end + 1) : body);
      metrics.request(kind, plan.status, length);
      return length;
    }
    if (file.size <= packageBodies.maxFileBytes) {
      packageBodies.load(file.blobKey).then(
        (loaded) => reply.send(plan.status, responseHeaders, plan.status === 206 ? loaded.subarray(start, end + 1) : loaded),
        (error) => fail(reply, error, file),
      );
      metrics.request(kind, plan.status, length);
      return length;
    }
    const blocks = packageBodies.blocks(file.blobKey, file.size, start, end);
    if (blocks) {
      // cached blocks are never given back to a read pool: a plain stream of them, not the store's
      if (blocks.length === 1) reply.send(plan.status, responseHeaders, blocks[0]);
      else reply.stream(plan.status, responseHeaders, Readable.from(blocks, { objectMode: false }));
      metrics.request(kind, plan.status, length);
      return length;
    }
    blobs.get(file.blobKey, plan.status === 206 ? { start, end } : undefined).then(
      (stream) => reply.stream(plan.status, responseHeaders, stream),
      (error) => fail(reply, error, file),
    );
    metrics.request(kind, plan.status, length);
    return length;
  }

  function fail(reply: EdgeReply, error: unknown, file: ServedFile) {
    logger.error({ err: error, blobKey: file.blobKey }, 'published file unreadable');
    if (!reply.started) reply.send(500, ['content-type', 'text/plain; charset=utf-8', 'content-length', '15'], Buffer.from('Internal error\n'));
    else reply.destroy();
  }

  /** the keys as published with the repository's indices; asked of the signing module only before its first publication */
  function serveKey(request: EdgeRequest, reply: EdgeReply, path: string, repository: ServedRepository, armored: boolean) {
    const published = repository.files.get(path);
    if (published) return void send(request, reply, published, 'key');
    publicKeys.get(repository.record.id).then(
      (files) => send(request, reply, armored ? files.armored : files.keyring, 'key'),
      (error) => {
        logger.warn({ err: error, repositoryId: repository.record.id }, 'public key unavailable');
        refuse(reply, 404);
      },
    );
  }

  /** the file at `path` to `found`, at once when it is loaded; 404 when the repository does not have it */
  function withFile(reply: EdgeReply, path: string, repository: ServedRepository, found: (repository: ServedRepository, file: ServedFile) => void) {
    const file = repository.files.get(path);
    if (file) return found(repository, file);
    // perhaps below a distribution not loaded yet, or named by a generation this process has not loaded yet (see PublishedCatalog.catchUp)
    catalog.catchUp(repository.record.id, path).then(
      (current) => {
        const late = current?.files.get(path);
        if (current && late) found(current, late);
        else refuse(reply, 404);
      },
      (error) => {
        logger.error({ err: error, repositoryId: repository.record.id }, 'loading published files failed');
        refuse(reply, 404);
      },
    );
  }

  function authorised(request: EdgeRequest, reply: EdgeReply, path: string, repository: ServedRepository | undefined, verdict: TokenVerdict) {
    if (!repository || !grantsRead(verdict, repository.record)) return refuse(reply, 401);
    withFile(reply, path, repository, (current, file) => (grantsRead(verdict, current.record) ? serve(request, reply, current, verdict, file) : refuse(reply, 401)));
  }

  function serve(request: EdgeRequest, reply: EdgeReply, repository: ServedRepository, verdict: TokenVerdict, file: ServedFile) {
    const kind: FileKind = file.isPackage ? 'package' : 'metadata';
    const bytes = send(request, reply, file, kind);
    const now = Date.now();
    accounting.served(repository.record, verdict, bytes, now);
    if (file.isPackage && bytes > 0 && request.method === 'GET' && (bytes === file.size || request.headers.range?.startsWith('bytes=0-'))) {
      accounting.downloaded(repository.record, verdict, file.sha256, bytes, now);
    }
  }

  function answer(request: EdgeRequest, reply: EdgeReply, path: string, repository: ServedRepository | undefined) {
    // the public key and repomd.xml.key are public: a machine needs them before it has a token
    if (repository && (path.endsWith('.key') || path.endsWith('.gpg'))) {
      const rest = path.slice(repositoryPath(repository.record).length);
      if (rest === `/${ARMORED_KEY_FILE}`) return serveKey(request, reply, path, repository, true);
      if (rest === `/${KEYRING_FILE}`) return serveKey(request, reply, path, repository, false);
      if (rest.endsWith('/repodata/repomd.xml.key')) return withFile(reply, path, repository, (_, file) => void send(request, reply, file, 'key'));
    }
    const verdict = verdicts.verdict(request.headers.authorization);
    if (!('then' in verdict)) return authorised(request, reply, path, repository, verdict);
    verdict.then(
      (answer) => authorised(request, reply, path, repository, answer),
      (error) => {
        logger.warn({ err: error }, 'token check failed');
        refuse(reply, 503);
      },
    );
  }

  function answerRequest(request: EdgeRequest, reply: EdgeReply) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(reply, 405);
    const path = decodePath(request.url ?? '/');
    if (path === undefined) return refuse(reply, 404);
    const repository = catalog.repositoryAt(path);
    if (!(repository instanceof Promise)) return answer(request, reply, path, repository);
    // the token is asked for while the repository loads (answer finds the verdict cached or on
    // its way): a first request after a start waits for the slower of the two, not for both
    const early = verdicts.verdict(request.headers.authorization);
    if (early instanceof Promise) early.catch(() => undefined);
    repository.then(
      (loaded) => answer(request, reply, path, loaded),
      (error) => {
        logger.error({ err: error, path }, 'loading the repository failed');
        refuse(reply, 503, 'Repository unavailable');
      },
    );
  }

  return {
    matches: (url) => url.startsWith('/deb/') || url.startsWith('/rpm/'),
    answer: answerRequest,
  };
}
