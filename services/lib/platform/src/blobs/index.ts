export * from './blob-store.port';
export * from './blob-store.factory';
export { contentAddressedKey } from './blob-key';
export { FsBlobStore } from './fs-blob-store.adapter';
export { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.adapter';
export { sweepAbandoned } from './abandoned-blobs';
