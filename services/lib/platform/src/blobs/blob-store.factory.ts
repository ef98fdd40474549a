import type { BlobStore } from './blob-store.port';
import { FsBlobStore } from './fs-blob-store.adapter';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.adapter';

export type BlobStoreOptions = { kind: 'fs'; dir: string } | ({ kind: 's3' } & S3BlobStoreOptions);

export async function createBlobStore(options: BlobStoreOptions): Promise<BlobStore> {
  switch (options.kind) {
    case 'fs':
      return new FsBlobStore(options.dir);
    case 's3': {
      const { kind: _, ...s3 } = options;
      return S3BlobStore.connect(s3);
    }
  }
}
