import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { EdgeHandler, GrpcClients, ReadModelStore } from '@packyard/platform';
import type { BlobStore } from '@packyard/platform/blobs/index';
import { hashTokenValue, type TokenHashDocument } from '@packyard/platform/crypto/token-hash';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { TrafficAccounting } from '../accounting/traffic-accounting';
import { TOKEN_HASHES, verdictOf } from '../auth/token-hashes.projection';
import { VerdictCache } from '../auth/token-verdicts';
import { PUBLIC_KEYS, type PublicKeysRecord } from '../catalog/delivery.projection';
import { PublishedCatalog } from '../catalog/published-catalog';
import { DELIVERY_CALLER } from '../delivery-caller';
import { PublicKeys } from '../keys/public-keys';
import { deliveryEdge } from './delivery-edge';
import { EdgeMetrics } from './edge-metrics';
import { PackageBodyCache } from './package-body-cache';

// Revocations reach the verdicts by event (under a second); the TTL only bounds a lost one.
const VERDICT_TTL_MS = 60_000;
const NEGATIVE_VERDICT_TTL_MS = 2_000;
// files up to 4 MiB (packages, and the indices: the catalogue holds no bodies) stay in
// memory after their first request, larger packages by 4 MiB blocks once a block was asked
// for twice; 256 MiB in all
const PACKAGE_CACHE_FILE_BYTES = 4 * 1024 * 1024;
const PACKAGE_CACHE_TOTAL_BYTES = 256 * 1024 * 1024;

export interface EdgeAssembly {
  catalog: PublishedCatalog;
  verdicts: VerdictCache;
  accounting: TrafficAccounting;
  publicKeys: PublicKeys;
  edge: EdgeHandler;
}

/**
 * What one process needs to answer apt and dnf: the published catalogue read from
 * delivery's read model, public keys from the read model (signing asked only for keys never
 * announced), token verdicts from delivery's copy of the token hashes (the token module asked
 * over gRPC for a token not in it), traffic counts, and the edge handler over them. The delivery module
 * builds one in its own process; each edge worker builds its own.
 */
export function assembleEdge(options: {
  readModels: ReadModelStore;
  blobs: BlobStore;
  clients: GrpcClients;
  registry: Registry;
  logger: Logger;
  presignDownloads: boolean;
  /** the package a served file is, for download counts (unknown in a worker: its primary attributes them) */
  packageIdOf: (repositoryId: string, sha256: string) => Promise<string | undefined>;
  goingAway?: () => boolean;
  /** false where edge workers answer the port for this process: its catalogue keeps no files (default true) */
  answersPort?: boolean;
}): EdgeAssembly {
  const { readModels, blobs, clients } = options;
  const catalog = new PublishedCatalog(readModels, blobs, { files: options.answersPort !== false });
  const publicKeys = new PublicKeys(
    async (repositoryId) => (await readModels.collection<PublicKeysRecord>(PUBLIC_KEYS).get(repositoryId))?.armored,
    async (repositoryId) => {
      const key = await clients.client(SigningServiceDefinition, 'signing').getPublicKey({ repositoryId }, { caller: DELIVERY_CALLER });
      return { armored: key.armored, binary: key.binary };
    },
  );
  const tokens = clients.client(TokenServiceDefinition, 'token');
  const tokenHashes = readModels.collection<TokenHashDocument>(TOKEN_HASHES);
  const verdicts = new VerdictCache(
    async (token) => {
      const known = await tokenHashes.get(hashTokenValue(token));
      if (known) return verdictOf(known);
      // not in the copy: created a moment ago (its event is on its way), or no token at all
      const answer = await tokens.validateToken({ token, repositoryId: '' }, { caller: DELIVERY_CALLER });
      return { valid: answer.valid, kind: answer.kind, tokenId: answer.tokenId, ownerId: answer.ownerId, scopes: answer.scopes, repositoryId: answer.repositoryId };
    },
    { ttlMs: VERDICT_TTL_MS, negativeTtlMs: NEGATIVE_VERDICT_TTL_MS, maxEntries: 100_000 },
  );
  const accounting = new TrafficAccounting(options.packageIdOf);
  const edge = deliveryEdge({
    catalog,
    verdicts,
    accounting,
    blobs,
    publicKeys,
    metrics: new EdgeMetrics(options.registry, catalog),
    packageBodies: new PackageBodyCache((key, range) => blobs.get(key, range), PACKAGE_CACHE_FILE_BYTES, PACKAGE_CACHE_TOTAL_BYTES),
    logger: options.logger,
    presignDownloads: options.presignDownloads,
    goingAway: options.goingAway,
  });
  return { catalog, verdicts, accounting, publicKeys, edge };
}
