import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendError } from '@packyard/platform';

/** Built files whose names carry a content hash never change: cache them for a year. */
const HASHED_FILE = /[.-][0-9a-f]{8,}\.(js|css|woff2?|svg|png|jpg|map)$/;

const cacheHeaders = (reply: { header(name: string, value: string): unknown }, path: string) => {
  reply.header('cache-control', HASHED_FILE.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
};

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Packyard</title></head>
<body><h1>Packyard</h1><p>The console has not been built yet: run <code>npm run build</code>.</p>
<p>The API is at <a href="/api/openapi.json">/api/openapi.json</a>.</p></body></html>`;

/** Paths that belong to the API or the apt/yum edge never fall back to the console. */
const NOT_CONSOLE = /^\/(api|deb|rpm|metrics|remotes|\.well-known)(\/|$)/;

/**
 * A file the build would have made (the build's folder, or a name with an extension): when
 * it is missing the answer is 404, never index.html, which a browser would run as script
 * ("Unexpected token '<'"). Client routes have no extension.
 */
const BUILT_FILE = /^\/static\/|\.[A-Za-z0-9]+$/;

/**
 * Serves the built console in single-node mode: the shell at `/` with SPA fallback to
 * its index.html, and each remote's build at `/remotes/<name>/`. Files are looked up per
 * request, so a rebuild while the server runs is served as it is.
 */
export async function consolePlugin(app: FastifyInstance, options: { frontendsDir: string }) {
  const shellDist = join(options.frontendsDir, 'shell', 'dist');
  const hasShell = existsSync(join(shellDist, 'index.html'));
  if (hasShell) {
    await app.register(fastifyStatic, { root: shellDist, prefix: '/', index: false, setHeaders: cacheHeaders });
  }
  const remotes = existsSync(options.frontendsDir)
    ? readdirSync(options.frontendsDir).filter((name) => name !== 'shell' && existsSync(join(options.frontendsDir, name, 'dist')))
    : [];
  for (const remote of remotes) {
    await app.register(fastifyStatic, {
      root: join(options.frontendsDir, remote, 'dist'),
      prefix: `/remotes/${remote}/`,
      decorateReply: false,
      setHeaders: cacheHeaders,
    });
  }

  const serveIndex = (reply: FastifyReply) =>
    hasShell
      ? reply.header('cache-control', 'no-cache').sendFile('index.html', shellDist)
      : reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(PLACEHOLDER);

  app.get('/', { schema: { hide: true } }, (_request, reply) => serveIndex(reply));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    if ((request.method === 'GET' || request.method === 'HEAD') && !NOT_CONSOLE.test(path) && !BUILT_FILE.test(path)) return serveIndex(reply);
    return sendError(reply, 404, `No route for ${request.method} ${path}`);
  });
}
