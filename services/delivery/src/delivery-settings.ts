import { availableParallelism } from 'node:os';
import { boolean, defineSettings, integer, PUBLIC_URL_SETTING, text } from '@packyard/platform/runtime/config';

export const DELIVERY_SETTINGS = defineSettings({
  publicUrl: PUBLIC_URL_SETTING,
  s3PresignDownloads: boolean('S3_PRESIGN_DOWNLOADS', false, 'redirect package downloads to short-lived presigned URLs (BLOBS=s3)'),
  edgeWorkers: {
    ...integer('EDGE_WORKERS', 0, '', 0, 256),
    default: undefined,
    description:
      'processes serving the apt/yum edge on PORT beside the main one, each with its own catalogue and token cache; they forward API and console requests to the main process, which then accepts no connection itself (unset: the number of CPUs with --target=all, else 0; 0: the main process serves the port itself, edge included)',
  },
  replicaId: text('DELIVERY_REPLICA_ID', undefined, 'names this delivery replica: with BUS=kafka each replica follows every event in its own consumer group, delivery-<id> (default: the host name, a pod\'s name in Kubernetes)'),
});

/** EDGE_WORKERS, or its default: a worker per CPU in single-node mode; a cluster scales the edge by replicas instead */
export const edgeWorkerCount = (setting: number | undefined, singleNode: boolean): number => setting ?? (singleNode ? availableParallelism() : 0);
