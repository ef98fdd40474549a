#!/usr/bin/env node
// The one entrypoint: `packyard --target=all` (default) or `--target=gateway,delivery`.
// Services are TypeScript run through tsx's loader, so the source is the program.
import cluster from 'node:cluster';
import { register } from 'tsx/esm/api';

register();
if (cluster.isWorker) {
  // an edge worker forked by delivery (EDGE_WORKERS) loads the edge only, not every module
  (await import('../src/edge-worker.ts')).edgeWorkerMain();
} else {
  // client commands (push, ls, …) load only their own code: a CI step should not wait for
  // every server module to compile (about 1 s instead of 6 here)
  const client = await import('../src/client/client.ts');
  if (client.isClientCommand(process.argv[2])) process.exit(await client.runClient(process.argv.slice(2), client.processIo()));
  else await import('../src/main.ts');
}
