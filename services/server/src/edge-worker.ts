import { runEdgeWorker } from '@packyard/delivery/edge-workers/edge-worker';

/**
 * What an edge worker process runs (delivery's EDGE_WORKERS forks them with node:cluster):
 * the apt/yum edge only, without loading the other modules' code.
 */
export function edgeWorkerMain(): void {
  runEdgeWorker().catch((error: unknown) => {
    process.stderr.write(`packyard edge worker: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
