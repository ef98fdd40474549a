import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { EdgeHandler } from '@packyard/platform';
import { recyclerOf, type BlobStore } from '@packyard/platform/blobs/index';
import type { TrafficAccounting } from '../accounting/traffic-accounting';
import { grantsRead, type TokenVerdict, type VerdictCache } from '../auth/token-verdicts';
import type { PublishedCatalog, ServedRepository } from '../catalog/published-catalog';
import { repositoryPath, type ServedFile } from '../catalog/served-file';
import { planResponse, type ResponsePlan } from '../http/conditional-request';
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
const PRESIGN_SECONDS = 300;
const WHOLE_FILE: ResponsePlan = { status: 200 };

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
 * Sends `stream` as the body, with back-pressure. When the blob store's stream takes chunks
 * back (RecyclingStream), each goes back once the socket has taken its bytes, so a large
 * file is served from a few buffers reused rather than one allocated (and collected) per
 * MiB. A client going away mid-download is its own business, not an error: the stream stops
 * (and lets go of its file).
 */
function streamInto(stream: Readable, response: ServerResponse): void {
  const recycle = recyclerOf(stream);
  if (!recycle) return void pipeline(stream, response).catch(() => undefined);
  stream.on('data', (chunk: Buffer) => {
    // given back only once written: on an error the socket may not be done with it
    if (!response.write(chunk, (error) => error || recycle(chunk))) stream.pause();
  });
  response.on('drain', () => stream.resume());
  stream.once('end', () => response.end());
  // a file unreadable halfway: the client sees the connection cut, as with pipeline
  stream.once('error', () => response.destroy());
  response.once('close', () => stream.destroy());
}

/**
 * The apt/yum edge: `/deb/…` and `/rpm/…` on the bare node:http server, before fastify.
 * Per request: one map lookup for the repository (the first request for a repository after
 * a start waits for it to be loaded), a cached token verdict, one map lookup for the file,
 * then bytes from memory or a stream from the blob store.
 */
export function deliveryEdge(options: DeliveryEdgeOptions): EdgeHandler {
  const { catalog, verdicts, accounting, blobs, publicKeys, metrics, packageBodies, logger } = options;

  const refuse = (response: ServerResponse, status: 401 | 404 | 405 | 503, unavailable = 'Token check unavailable') => {
    metrics.request('none', status, 0);
    if (status === 401) return response.writeHead(401, UNAUTHORIZED_HEADERS).end('Unauthorized\n');
    if (status === 404) return response.writeHead(404, NOT_FOUND_HEADERS).end('Not found\n');
    if (status === 405) return response.writeHead(405, ['allow', 'GET, HEAD', 'content-length', '0']).end();
    if (options.goingAway?.()) return response.destroy();
    return response.writeHead(503, ['retry-after', '1', 'content-type', 'text/plain; charset=utf-8', 'cache-control', 'no-store']).end(`${unavailable}\n`);
  };

  /** answers `file` (authorised); returns the body bytes it sends */
  function send(request: IncomingMessage, response: ServerResponse, file: ServedFile, kind: FileKind): number {
    const headers = request.headers;
    // most requests carry no condition and no range: they are answered whole without building the conditions
    const plan =
      headers['if-none-match'] === undefined && headers['if-modified-since'] === undefined && headers.range === undefined
        ? WHOLE_FILE
        : planResponse({ ifNoneMatch: headers['if-none-match'], ifModifiedSince: headers['if-modified-since'], range: headers.range, ifRange: headers['if-range'] as string | undefined }, file);
    const head = request.method === 'HEAD';
    if (plan.status === 304) {
      response.writeHead(304, file.notModifiedHeaders).end();
      metrics.request(kind, 304, 0);
      return 0;
    }
    if (plan.status === 416) {
      response.writeHead(416, ['content-range', `bytes */${file.size}`, 'content-length', '0', 'vary', 'Authorization']).end();
      metrics.request(kind, 416, 0);
      return 0;
    }
    const start = plan.status === 206 ? plan.start : 0;
    const end = plan.status === 206 ? plan.end : file.size - 1;
    const length = end - start + 1;
    const responseHeaders = plan.status === 206 ? [...file.headers, 'content-range', `bytes ${start}-${end}/${file.size}`, 'content-length', String(length)] : file.fullHeaders;
    if (head) {
      response.writeHead(plan.status, responseHeaders).end();
      metrics.request(kind, plan.status, 0);
      return 0;
    }
    // the object store sends package bytes itself; metadata stays here (it is in memory)
    if (!file.body && options.presignDownloads && blobs.presignedGet && plan.status === 200) {
      blobs.presignedGet(file.blobKey, PRESIGN_SECONDS).then(
        (location) => response.writeHead(302, ['location', location, 'cache-control', 'no-store', 'vary', 'Authorization', 'content-length', '0']).end(),
        (error) => fail(response, error, file),
      );
      metrics.request(kind, 302, 0);
      return length;
    }
    const body = file.body ?? (file.size <= packageBodies.maxFileBytes ? packageBodies.get(file.blobKey) : undefined);
    if (body) {
      response.writeHead(plan.status, responseHeaders).end(plan.status === 206 ? body.subarray(start, end + 1) : body);
      metrics.request(kind, plan.status, length);
      return length;
    }
    if (file.size <= packageBodies.maxFileBytes) {
      packageBodies.load(file.blobKey).then(
        (loaded) => response.writeHead(plan.status, responseHeaders).end(plan.status === 206 ? loaded.subarray(start, end + 1) : loaded),
        (error) => fail(response, error, file),
      );
      metrics.request(kind, plan.status, length);
      return length;
    }
    blobs.get(file.blobKey, plan.status === 206 ? { start, end } : undefined).then(
      (stream) => {
        response.writeHead(plan.status, responseHeaders);
        streamInto(stream, response);
      },
      (error) => fail(response, error, file),
    );
    metrics.request(kind, plan.status, length);
    return length;
  }

  function fail(response: ServerResponse, error: unknown, file: ServedFile) {
    logger.error({ err: error, blobKey: file.blobKey }, 'published file unreadable');
    if (!response.headersSent) response.writeHead(500, ['content-type', 'text/plain; charset=utf-8', 'content-length', '15']).end('Internal error\n');
    else response.destroy();
  }

  /** the keys as published with the repository's indices; asked of the signing module only before its first publication */
  function serveKey(request: IncomingMessage, response: ServerResponse, path: string, repository: ServedRepository, armored: boolean) {
    const published = repository.files.get(path);
    if (published) return void send(request, response, published, 'key');
    publicKeys.get(repository.record.id).then(
      (files) => send(request, response, armored ? files.armored : files.keyring, 'key'),
      (error) => {
        logger.warn({ err: error, repositoryId: repository.record.id }, 'public key unavailable');
        refuse(response, 404);
      },
    );
  }

  function authorised(request: IncomingMessage, response: ServerResponse, path: string, repository: ServedRepository | undefined, verdict: TokenVerdict) {
    if (!repository || !grantsRead(verdict, repository.record)) return refuse(response, 401);
    const file = repository.files.get(path);
    if (!file) return refuse(response, 404);
    const kind: FileKind = file.isPackage ? 'package' : 'metadata';
    const bytes = send(request, response, file, kind);
    const now = Date.now();
    accounting.served(repository.record, verdict, bytes, now);
    if (file.isPackage && bytes > 0 && request.method === 'GET' && (bytes === file.size || request.headers.range?.startsWith('bytes=0-'))) {
      accounting.downloaded(repository.record, verdict, file.sha256, bytes, now);
    }
  }

  function answer(request: IncomingMessage, response: ServerResponse, path: string, repository: ServedRepository | undefined) {
    // the public key and repomd.xml.key are public: a machine needs them before it has a token
    if (repository && (path.endsWith('.key') || path.endsWith('.gpg'))) {
      const rest = path.slice(repositoryPath(repository.record).length);
      if (rest === `/${ARMORED_KEY_FILE}`) return serveKey(request, response, path, repository, true);
      if (rest === `/${KEYRING_FILE}`) return serveKey(request, response, path, repository, false);
      if (rest.endsWith('/repodata/repomd.xml.key')) {
        const file = repository.files.get(path);
        return file ? void send(request, response, file, 'key') : refuse(response, 404);
      }
    }
    const verdict = verdicts.verdict(request.headers.authorization);
    if (!('then' in verdict)) return authorised(request, response, path, repository, verdict);
    verdict.then(
      (answer) => authorised(request, response, path, repository, answer),
      (error) => {
        logger.warn({ err: error }, 'token check failed');
        refuse(response, 503);
      },
    );
  }

  return {
    matches: (url) => url.startsWith('/deb/') || url.startsWith('/rpm/'),
    handle(request, response) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, 405);
      const path = decodePath(request.url ?? '/');
      if (path === undefined) return refuse(response, 404);
      const repository = catalog.repositoryAt(path);
      if (!(repository instanceof Promise)) return answer(request, response, path, repository);
      repository.then(
        (loaded) => answer(request, response, path, loaded),
        (error) => {
          logger.error({ err: error, path }, 'loading the repository failed');
          refuse(response, 503, 'Repository unavailable');
        },
      );
    },
  };
}
