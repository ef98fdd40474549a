import { Agent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { SendHandle } from 'node:child_process';
import { Socket, type AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { collectDefaultMetrics, Registry } from 'prom-client';
// by their files, not the platform's index: a worker loads the edge's code only (see runEdgeWorkersFrom)
import { createGrpcClients } from '@packyard/platform/grpc/grpc-clients';
import { acceptThroughCopies, type AcceptCopies } from '@packyard/platform/http/accept-copies';
import { edgeFirst, replyThrough } from '@packyard/platform/http/edge-http1';
import { publicServerOptions } from '@packyard/platform/http/public-server-options';
import { createReadModelStore } from '@packyard/platform/readmodels/read-model-store.factory';
import { loadConfig, readSettings, type Setting, type SettingsDeclaration, type ValuesOf } from '@packyard/platform/runtime/config';
import { storeOptionsFor } from '@packyard/platform/runtime/event-sourcing.module';
import { GRPC_CLIENT_SETTINGS, HTTP_SERVER_SETTINGS, INTERNAL_AUTH_SETTINGS, loadCallerAssertions } from '@packyard/platform/runtime/infrastructure-settings';
import { createLogger, type Logger } from '@packyard/platform/runtime/logger';
import { BLOB_STORE_SETTINGS, openBlobStore } from '@packyard/platform/runtime/blob-store.module';
import { DELIVERY_SETTINGS } from '../delivery-settings';
import { assembleEdge } from '../edge/edge-assembly';
import { ConnectionBalance } from './connection-balance';
import { EDGE_WORKER_SLOT_ENV, PRIMARY_SOCKET_ENV, type FromEdgeWorker, type ToEdgeWorker } from './edge-worker-messages';

const TRAFFIC_REPORT_INTERVAL_MS = 1_000;
// hop-by-hop headers (RFC 9110 7.6.1): each side of the forwarding keeps its own connection
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer']);

const send = (message: FromEdgeWorker, done?: () => void) => {
  if (process.connected) process.send!(message, undefined, undefined, () => done?.());
  else done?.();
};

const settingsOf = <S extends Record<string, Setting<unknown>>>(declaration: SettingsDeclaration<S>): ValuesOf<S> => readSettings(declaration, process.env).values;

/**
 * Forwards a request that is not the edge's (API, console, health) to the main process's
 * HTTP server over its private socket, on kept-alive connections, body and answer streamed
 * both ways. The client's address goes along in X-Forwarded-For, which the main process
 * takes from this socket only (and from anyone with TRUST_PROXY, as before).
 */
function forwardToPrimary(primarySocket: string, { trustProxy, idleMs }: { trustProxy: boolean; idleMs: number }, primaryGone: () => boolean, logger: Logger) {
  const agent = new Agent({ keepAlive: true });
  return (request: IncomingMessage, response: ServerResponse) => {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const client = request.socket.remoteAddress ?? '';
    if (trustProxy && headers['x-forwarded-for']) headers['x-forwarded-for'] = `${request.headers['x-forwarded-for']}, ${client}`;
    else {
      headers['x-forwarded-for'] = client;
      // without TRUST_PROXY a client's own X-Forwarded-* mean nothing, here as in the main process
      if (!trustProxy) {
        delete headers['x-forwarded-host'];
        delete headers['x-forwarded-proto'];
      }
    }
    const upstream = httpRequest({ socketPath: primarySocket, agent, method: request.method, path: request.url, headers }, (answer) => {
      const answerHeaders: string[] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        if (!HOP_BY_HOP.has(answer.rawHeaders[i].toLowerCase())) answerHeaders.push(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
      }
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
      pipeline(answer, response).catch(() => undefined);
    });
    upstream.on('error', (error) => {
      if (response.headersSent || primaryGone()) return void response.destroy();
      logger.warn({ err: error, method: request.method, url: request.url }, 'forwarding to the main process failed');
      response.writeHead(502, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify({ status: 502, message: 'The server is restarting; try again', details: {} }));
    });
    // once the body is in, the main process may be quiet for a while (an upload waiting for
    // its publication): it times the request itself, so this connection is not idle meanwhile
    request.once('end', () => request.socket.setTimeout(0));
    // a client that goes away takes its forwarded request with it
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
      request.socket.setTimeout(idleMs);
    });
    pipeline(request, upstream).catch(() => undefined);
  };
}

/**
 * An edge worker process (see EdgeWorkers): the delivery edge over its own catalogue and
 * token verdicts, read from delivery's read model and asked of the token module over gRPC;
 * told of changes by the delivery module of the main process over IPC. Everything that is
 * not the edge's goes to the main process. Its metrics carry `edge_worker="<slot>"`.
 */
export async function runEdgeWorker(): Promise<void> {
  // first of all, so no refresh or revocation is missed: they wait here until the edge exists. The
  // read model is read only after the welcome: a change made before it is in what is read, one
  // made after it is sent here
  const early: ToEdgeWorker[] = [];
  let handle: ((message: ToEdgeWorker) => void) | undefined;
  let welcome: () => void = () => undefined;
  const welcomed = new Promise<void>((resolve) => (welcome = resolve));
  let listen: (moduleAddresses: Record<string, string>) => void = () => undefined;
  const told = new Promise<Record<string, string>>((resolve) => (listen = resolve));
  // set once this worker listens, which is when connections and the table of them start coming
  let balance: ConnectionBalance | undefined;
  /** a connection another worker accepted, unread: this worker serves it */
  const adopt = (descriptor: SendHandle | undefined) => {
    if (!descriptor) return;
    if (!balance) return (descriptor as unknown as { close(): void }).close();
    // node:net's own options for a socket over a descriptor it did not open (as node:cluster makes them)
    balance.given(new Socket({ handle: descriptor, readable: true, writable: true, pauseOnCreate: true } as ConstructorParameters<typeof Socket>[0]));
  };
  process.on('message', (message: ToEdgeWorker, connection?: SendHandle) => {
    if (message.type === 'welcome') welcome();
    else if (message.type === 'listen') listen(message.moduleAddresses);
    else if (message.type === 'held') balance?.heard(message.table);
    else if (message.type === 'connection') {
      adopt(connection);
      send({ type: 'took', connection: message.number });
    }
    else if (handle) handle(message);
    else early.push(message);
  });
  send({ type: 'subscribed' });

  const slot = process.env[EDGE_WORKER_SLOT_ENV] ?? '0';
  // a worker outliving a main process killed with SIGKILL exits when it notices (node:cluster
  // does on the IPC channel's end); until then it must not answer for it
  const parent = process.ppid;
  const primaryGone = () => process.ppid !== parent;
  const primarySocket = process.env[PRIMARY_SOCKET_ENV]!;
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'packyard', config.logFormat).child({ module: 'delivery', edgeWorker: Number(slot) });
  const http = settingsOf(HTTP_SERVER_SETTINGS);
  // where the token and signing modules answer: known once the main process has started them
  const moduleAddresses = { ...config.moduleAddresses };
  const registry = new Registry();
  registry.setDefaultLabels({ edge_worker: slot });
  collectDefaultMetrics({ register: registry });
  const clients = createGrpcClients({
    registry,
    deadlineMs: settingsOf(GRPC_CLIENT_SETTINGS).grpcDeadlineMs,
    assertions: await loadCallerAssertions(config.dataDir, settingsOf(INTERNAL_AUTH_SETTINGS).internalAuthKey),
    addressesOf: (module) => {
      const addresses = moduleAddresses[module];
      if (!addresses) throw new Error(`the main process did not say where module ${module} answers`);
      return addresses.split(',');
    },
  });
  const blobs = await openBlobStore(settingsOf(BLOB_STORE_SETTINGS), config.dataDir);
  const readModels = await createReadModelStore(storeOptionsFor(config, 'delivery'));
  const { catalog, verdicts, accounting, publicKeys, edge } = assembleEdge({
    readModels,
    blobs,
    clients,
    registry,
    logger,
    presignDownloads: settingsOf(DELIVERY_SETTINGS).s3PresignDownloads,
    packageIdOf: async () => undefined,
    goingAway: primaryGone,
  });
  handle = (message) => {
    if (message.type === 'welcome' || message.type === 'listen' || message.type === 'held' || message.type === 'connection') return;
    if (message.type === 'revoke') return verdicts.revoke(message.tokenId);
    if (message.type === 'refresh') {
      publicKeys.forget(message.repositoryId);
      catalog
        .refresh(message.repositoryId)
        .catch((error: unknown) => logger.error({ err: error, repositoryId: message.repositoryId }, 'rebuilding the served files failed'))
        .finally(() => send({ type: 'refreshed', seq: message.seq }));
      return;
    }
    registry.getMetricsAsJSON().then((metrics) => send({ type: 'metrics', seq: message.seq, metrics }));
  };
  for (const message of early.splice(0)) handle(message);
  await welcomed;

  const forward = forwardToPrimary(primarySocket, { trustProxy: http.trustProxy, idleMs: http.idleTimeoutSeconds * 1000 }, primaryGone, logger);
  const server = createServer(
    publicServerOptions({ headersMs: http.headersTimeoutSeconds * 1000, requestMs: http.requestTimeoutSeconds * 1000, idleMs: http.idleTimeoutSeconds * 1000, longBodyMs: http.uploadTimeoutSeconds * 1000 }),
    (request, response) => (edge.matches(request.url ?? '/') ? edge.answer(request, replyThrough(response)) : forward(request, response)),
  ).setTimeout(http.idleTimeoutSeconds * 1000);
  // every connection is accepted unread, so one can go to another worker whole
  // (node:net reads the option from this property; node:http's options do not pass it on)
  Object.assign(server, { pauseOnConnect: true });
  balance = new ConnectionBalance({
    slot: Number(slot) - 1,
    registry,
    report: (count, report) => send({ type: 'held', count, report }),
    giveAway(socket, sent, kept) {
      const descriptor = (socket as unknown as { _handle?: SendHandle })._handle;
      if (!descriptor || !process.connected) return kept();
      // this copy closes once the other is on its way to the main process
      process.send!({ type: 'give' } satisfies FromEdgeWorker, descriptor, undefined, (error: Error | null) => {
        if (error) return kept();
        socket.destroy();
        sent();
      });
    },
    serve: (socket) => edgeConnections.take(socket),
  });
  // apt's and dnf's GETs are read by the edge itself, everything else by node:http
  const edgeConnections = edgeFirst(server, { edge, idleMs: http.idleTimeoutSeconds * 1000, headersMs: http.headersTimeoutSeconds * 1000, accepted: (socket) => balance!.accepted(socket) });
  const reportTraffic = (done?: () => void) => {
    const totals = accounting.take();
    if (totals.traffic.length || totals.downloads.length) send({ type: 'traffic', totals }, done);
    else done?.();
  };
  const reporting = setInterval(() => reportTraffic(), TRAFFIC_REPORT_INTERVAL_MS);
  send({ type: 'ready' });
  Object.assign(moduleAddresses, await told);
  // listening goes through the main process (node:cluster), which holds the bound socket
  server.once('error', (error) => send({ type: 'failed', message: error.message }, () => process.exit(1)));
  let copies: Promise<AcceptCopies> | undefined;
  server.listen({ port: http.port, host: http.host }, () => {
    copies = acceptThroughCopies(server, logger);
    send({ type: 'listening', port: (server.address() as AddressInfo).port });
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const closed = Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), copies?.then((accepting) => accepting.close())]);
    server.closeIdleConnections();
    edgeConnections.closeIdle();
    const hardStop = setTimeout(() => {
      server.closeAllConnections();
      edgeConnections.closeAll();
    }, config.shutdownTimeoutMs);
    void closed.then(async () => {
      clearTimeout(hardStop);
      clearInterval(reporting);
      balance!.close();
      clients.close();
      await readModels.close();
      await blobs.close();
      reportTraffic(() => process.exit(0));
    });
  };
  process.once('SIGTERM', stop);
  // Ctrl-C reaches every process of the terminal's group: the main process stops the workers
  // (SIGTERM) when its modules are drained, so one does not die early and get restarted
  process.on('SIGINT', () => undefined);
}
