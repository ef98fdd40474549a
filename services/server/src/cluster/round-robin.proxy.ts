import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RoundRobinProxy {
  port(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
// a backend that refused a connection is left out this long before it is tried again
const DOWN_FOR_MS = 1_000;
const READINESS_EVERY_MS = 1_000;

/**
 * The local cluster's front door: what a Kubernetes Service (or a load balancer) does for
 * the replicas behind it, in 100 lines. Requests go to the ready backends in turn; a
 * backend that is not ready (its /api/actuator/health is not 200) or refuses connections
 * is skipped. A GET or HEAD that could not reach a backend is tried on the next one, so a
 * replica killed mid-way costs apt and dnf nothing; a request with a body cannot be
 * replayed and gets a 502.
 */
export async function startRoundRobinProxy(options: { port: number; host: string; backends: string[] }): Promise<RoundRobinProxy> {
  const downUntil = new Map<string, number>();
  let turn = 0;
  const available = () => {
    const now = Date.now();
    const up = options.backends.filter((backend) => (downUntil.get(backend) ?? 0) <= now);
    return up.length > 0 ? up : options.backends;
  };

  const probe = setInterval(() => {
    for (const backend of options.backends) {
      fetch(`${backend}/api/actuator/health`, { signal: AbortSignal.timeout(READINESS_EVERY_MS) }).then(
        (response) => {
          if (response.status === 200) downUntil.delete(backend);
          else downUntil.set(backend, Date.now() + READINESS_EVERY_MS * 2);
          return response.body?.cancel();
        },
        () => downUntil.set(backend, Date.now() + READINESS_EVERY_MS * 2),
      );
    }
  }, READINESS_EVERY_MS);
  probe.unref();

  const relay = (request: IncomingMessage, response: ServerResponse, tried: Set<string>) => {
    const candidates = available().filter((backend) => !tried.has(backend));
    if (candidates.length === 0) {
      response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 502, message: 'No backend answered', details: {} }));
      return;
    }
    const backend = candidates[turn++ % candidates.length];
    tried.add(backend);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
    const upstream = forward(`${backend}${request.url}`, { method: request.method, headers }, (answer) => {
      const passed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
      response.writeHead(answer.statusCode ?? 502, passed);
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (response.headersSent) return response.destroy();
      if (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET') downUntil.set(backend, Date.now() + DOWN_FOR_MS);
      const replayable = request.method === 'GET' || request.method === 'HEAD';
      if (replayable) return relay(request, response, tried);
      response.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 502, message: `Backend failed: ${error.code ?? error.message}`, details: {} }));
    });
    if (request.method === 'GET' || request.method === 'HEAD') upstream.end();
    else request.pipe(upstream);
  };

  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => relay(request, response, new Set()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: () => (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(probe);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
