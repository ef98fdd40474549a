// One place for how console projects are built, so the shell and every remote agree on
// the shared singletons and the URL layout the single-node server honours:
// the shell at `/`, each remote at `/remotes/<name>/`.
import { fileURLToPath } from 'node:url';
import { defineConfig, type RsbuildConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';

const apiOrigin = process.env.PACKYARD_API_ORIGIN ?? 'http://localhost:8080';

/** Libraries that must exist once per page: two Reacts break hooks, two routers or
 *  query clients split state, two console-kits split the session. */
export function sharedSingletons() {
  const singleton = { singleton: true, requiredVersion: false as const };
  return {
    react: singleton,
    'react-dom': singleton,
    'react-router-dom': singleton,
    '@tanstack/react-query': singleton,
    '@packyard/console-kit': singleton,
  };
}

const common = {
  // the template only adds lang="en" to rsbuild's own (screen readers and translators read it)
  html: { title: 'Packyard', template: fileURLToPath(new URL('./index.html', import.meta.url)) },
  output: { distPath: { root: 'dist' }, cleanDistPath: true },
  performance: { chunkSplit: { strategy: 'split-by-experience' } },
  // The dev servers forward API calls to a running Packyard, like the gateway does in production.
  server: { proxy: { '/api': apiOrigin } },
} satisfies RsbuildConfig;

/** The host: served at `/`, loads remotes at run time (see the shell's remotes list). */
export function shellConfig({ port = 3000 }: { port?: number } = {}) {
  return defineConfig({
    ...common,
    plugins: [
      pluginReact(),
      // The shell carries the federation runtime once for every remote (see remoteConfig).
      pluginModuleFederation({ name: 'shell', shared: sharedSingletons(), dts: false, experiments: { provideExternalRuntime: true } }),
    ],
    source: { entry: { index: './src/index.ts' } },
    server: { ...common.server, port, historyApiFallback: true },
    output: { ...common.output, assetPrefix: '/' },
  });
}

/** A remote: exposes `./register`; its own `index` entry is the isolated dev mode. */
export function remoteConfig({ name, port }: { name: string; port: number }) {
  // Built for the shell, a remote borrows the shell's federation runtime (about 18 KB
  // gzipped each otherwise); running alone in dev mode, it brings its own.
  return defineConfig(({ command }) => ({
    ...common,
    plugins: [
      pluginReact(),
      pluginModuleFederation({
        name,
        exposes: { './register': './src/register.tsx' },
        shared: sharedSingletons(),
        dts: false,
        manifest: true,
        experiments: { externalRuntime: command === 'build' },
      }),
    ],
    source: { entry: { index: './src/isolated.ts' } },
    server: { ...common.server, port, historyApiFallback: true },
    // In production the gateway serves the build at /remotes/<name>/; the dev server at its root.
    output: { ...common.output, assetPrefix: `/remotes/${name}/` },
  }));
}
