import { join } from 'node:path';
import { sweepAbandoned } from '../blobs/abandoned-blobs';
import { createBlobStore } from '../blobs/blob-store.factory';
import type { BlobStore } from '../blobs/blob-store.port';
import { defineSettings, integer, oneOf, text, type ValuesOf } from './config';
import { defineModule } from './module';

export const BLOB_STORE_SETTINGS = defineSettings(
  {
    blobs: oneOf('BLOBS', 'fs', ['fs', 's3'] as const, 'blob store for packages and index files'),
    s3Endpoint: text('S3_ENDPOINT', undefined, 'S3/MinIO endpoint URL, e.g. http://minio:9000 (BLOBS=s3)'),
    s3AccessKey: text('S3_ACCESS_KEY', undefined, 'S3 access key'),
    s3SecretKey: text('S3_SECRET_KEY', undefined, 'S3 secret key'),
    s3Bucket: text('S3_BUCKET', 'packyard', 'S3 bucket'),
    // a put whose body pauses longer than the HTTP idle timeout is cut, and a staged upload
    // is claimed within one gRPC deadline: well past both, nothing live can own the blob
    abandonedAfterSeconds: integer('ABANDONED_BLOBS_AFTER_S', 120, 'a temporary or staged blob untouched this long is left over from a crash or an aborted upload and removed (keep it well above HTTP_IDLE_TIMEOUT_S and GRPC_DEADLINE_MS)', 1),
  },
  (values) => (values.blobs === 's3' && !(values.s3Endpoint && values.s3AccessKey && values.s3SecretKey) ? ['BLOBS=s3 needs S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY'] : []),
);

/** the blob store BLOB_STORE_SETTINGS name, for a process that reads it outside the module (an edge worker) */
export async function openBlobStore(config: ValuesOf<typeof BLOB_STORE_SETTINGS.settings>, dataDir: string): Promise<BlobStore> {
  const s3 = config.blobs === 's3' ? new URL(config.s3Endpoint!) : undefined;
  return createBlobStore(
    s3
      ? {
          kind: 's3',
          endPoint: s3.hostname,
          port: Number(s3.port || (s3.protocol === 'https:' ? 443 : 80)),
          useSSL: s3.protocol === 'https:',
          accessKey: config.s3AccessKey!,
          secretKey: config.s3SecretKey!,
          bucket: config.s3Bucket,
        }
      : { kind: 'fs', dir: join(dataDir, 'blobs') },
  );
}

/**
 * The process's blob store (filesystem under DATA_DIR/blobs, or S3/MinIO by `BLOBS`),
 * shared by the modules that keep bytes: the gateway stages uploads, artifact keeps
 * packages, repository keeps index generations, delivery reads them.
 */
export const blobStoreModule = defineModule<BlobStore>({
  name: 'blob-store',
  hidden: true,
  deps: [],
  settings: BLOB_STORE_SETTINGS,
  init: async (ctx) => {
    const config = ctx.settings(BLOB_STORE_SETTINGS);
    const store = await openBlobStore(config, ctx.config.dataDir);
    const stopSweeping = await sweepAbandoned('temporary blobs', config.abandonedAfterSeconds * 1000, ctx.logger, (cutoff) => store.removeAbandonedTemporaries(cutoff));
    return {
      value: store,
      stop: async () => {
        stopSweeping();
        await store.close();
      },
    };
  },
});
