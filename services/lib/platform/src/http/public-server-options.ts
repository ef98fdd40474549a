/** How long a client may take; a slow link gets through as long as it keeps moving. */
export interface HttpTimeouts {
  headersMs: number;
  /** the whole request, body included, on every route but those with `config.longBody` */
  requestMs: number;
  /** nothing received or sent for this long closes the connection */
  idleMs: number;
  /** the whole request on a route with `config.longBody` (uploads) */
  longBodyMs: number;
}

/** the node:http server settings of the public port, for whichever process serves it */
export const publicServerOptions = (timeouts: HttpTimeouts) => ({
  keepAliveTimeout: 65_000,
  headersTimeout: timeouts.headersMs,
  // node's own limit is the longest a body may take (an upload's); http-server.ts applies the shorter one of other routes per request
  requestTimeout: timeouts.longBodyMs,
  // how often node checks the two above (default 30 s: a limit of 10 s would mean 10–40 s)
  connectionsCheckingInterval: 1000,
});
