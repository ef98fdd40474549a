import { defineConfig } from 'vitest/config';

// Three layers (STYLE.md): unit specs beside the code, integration specs against real
// servers where present, end-to-end specs driving the single-node program.
export default defineConfig({
  test: {
    // the real servers a run shares (radosgw, the Kafka-protocol broker), started on first use
    globalSetup: ['services/lib/testing/src/servers/global-setup.ts'],
    projects: [
      { test: { name: 'unit', include: ['{services,frontends,proto}/**/*.unit.spec.{ts,tsx}'], exclude: ['**/node_modules/**'] } },
      { test: { name: 'int', include: ['{services,frontends,proto,charts}/**/*.int.spec.{ts,tsx}'], exclude: ['**/node_modules/**'], testTimeout: 60_000, hookTimeout: 120_000 } },
      {
        test: {
          name: 'e2e',
          include: ['{services,frontends,loadtests}/**/*.e2e.spec.{ts,tsx}'],
          exclude: ['**/node_modules/**'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
