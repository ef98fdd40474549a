import type { BuildOptions } from 'esbuild';

/** the build options of dist/edge-worker.mjs (build.mjs) */
export declare const edgeWorkerBundle: BuildOptions;
