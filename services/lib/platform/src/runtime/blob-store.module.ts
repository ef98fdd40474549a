import { join } from 'node:path';
import { abandonedAfterMs, sweepAbandoned } from '../blobs/abandoned-blobs';
import { createBlobStore } from '../blobs/blob-store.factory';
import type { BlobStore } from '../blobs/blob-store.port';
import { defineModule } from './module';

/**
 * The process's blob store (filesystem under DATA_DIR/blobs, or S3/MinIO by `BLOBS`),
 * shared by the modules that keep bytes: the gateway stages uploads, artifact keeps
 * packages, repository keeps index generations, delivery reads them.
 */
export const blobStoreModule = defineModule<BlobStore>({
  name: 'blob-store',
  hidden: true,
  deps: [],
  init: async (ctx) => {
    const { config } = ctx;
    const s3 = config.blobs === 's3' ? new URL(config.s3Endpoint!) : undefined;
    const store = await createBlobStore(
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
        : { kind: 'fs', dir: join(config.dataDir, 'blobs') },
    );
    const stopSweeping = await sweepAbandoned('temporary blobs', abandonedAfterMs(config), ctx.logger, (cutoff) => store.removeAbandonedTemporaries(cutoff));
    return {
      value: store,
      stop: async () => {
        stopSweeping();
        await store.close();
      },
    };
  },
});
