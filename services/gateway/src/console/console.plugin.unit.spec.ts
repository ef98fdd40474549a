import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePlugin } from './console.plugin';

// The console as the single-node program serves it, over a real socket: built files,
// files a rebuild adds while the server runs, and the SPA fallback for client routes only.

describe('console files', () => {
  let frontends: string;
  let app: FastifyInstance;
  let origin: string;
  const get = (path: string) => fetch(`${origin}${path}`);

  beforeAll(async () => {
    frontends = mkdtempSync(join(tmpdir(), 'packyard-console-'));
    mkdirSync(join(frontends, 'shell', 'dist', 'static', 'js'), { recursive: true });
    mkdirSync(join(frontends, 'repository', 'dist'), { recursive: true });
    writeFileSync(join(frontends, 'shell', 'dist', 'index.html'), '<!doctype html><title>Packyard</title>');
    writeFileSync(join(frontends, 'shell', 'dist', 'static', 'js', 'main.0123abcd.js'), 'console.log("shell")');
    writeFileSync(join(frontends, 'repository', 'dist', 'remoteEntry.js'), 'console.log("remote")');
    app = Fastify();
    await app.register(consolePlugin, { frontendsDir: frontends });
    origin = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(frontends, { recursive: true, force: true });
  });

  it('serves built files, immutable when their names are hashed', async () => {
    const script = await get('/static/js/main.0123abcd.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await (await get('/remotes/repository/remoteEntry.js')).text()).toBe('console.log("remote")');
  });

  it('answers 404 for a missing asset instead of index.html', async () => {
    for (const path of ['/static/js/main.deadbeef.js', '/static/css/gone.css', '/favicon.ico', '/remotes/repository/static/js/old.js']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain('<!doctype html>');
    }
  });

  it('serves a file a rebuild wrote after start', async () => {
    writeFileSync(join(frontends, 'shell', 'dist', 'static', 'js', 'main.fedcba98.js'), 'console.log("rebuilt")');
    const response = await get('/static/js/main.fedcba98.js');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('console.log("rebuilt")');
  });

  it('gives client routes the console, and API paths their own 404', async () => {
    for (const path of ['/', '/dashboard', '/workspaces/1f0c/repos/9ab2/packages', '/login?next=%2Fsettings']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toContain('<title>Packyard</title>');
    }
    const api = await get('/api/v1/nothing-here');
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ status: 404 });
  });
});
