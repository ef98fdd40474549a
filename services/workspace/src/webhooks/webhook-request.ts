import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { AttemptOutcome } from './webhook-delivery.decider';

/** the first bytes of a receiver's answer kept in the delivery log */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast and reserved ranges */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? PRIVATE.check(mapped[1], 'ipv4') : PRIVATE.check(address, 'ipv6');
}

class RefusedAddressError extends Error {}

const refusal = (host: string, address: string) =>
  new RefusedAddressError(`${host} resolves to ${address}, a private or loopback address (WEBHOOK_ALLOW_PRIVATE_ADDRESSES=false)`);

/**
 * The name is resolved here and the connection goes to the address checked, so a DNS answer
 * that changes between a check and the connect (rebinding) cannot slip a private address in.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(refusal(hostname, refused.address), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

export interface WebhookRequestOptions {
  timeoutMs: number;
  allowPrivateAddresses: boolean;
  headers: Record<string, string>;
}

/**
 * POSTs one delivery: a 2xx is success, anything else (a redirect too: it is not followed,
 * since the receiver named this URL and the signature is for it) is a failure, as are a
 * refused connection, a DNS failure and no answer within the timeout. Only the first
 * RESPONSE_EXCERPT_BYTES of the answer are read.
 */
export function postWebhook(url: string, body: string, options: WebhookRequestOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const outcome = (statusCode: number, responseExcerpt: string, error: string): AttemptOutcome => ({
    statusCode,
    durationMs: Math.round(performance.now() - started),
    responseExcerpt,
    error,
    succeeded: !error && statusCode >= 200 && statusCode < 300,
  });
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivateAddresses && isIP(host) && isPrivateAddress(host)) return Promise.resolve(outcome(0, '', refusal(host, host).message));

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        ...(options.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
        agent: false,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
          const statusCode = response.statusCode ?? 0;
          finish(outcome(statusCode, excerpt, statusCode >= 200 && statusCode < 300 ? '' : `HTTP ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}`));
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          kept += chunk.length;
          if (kept >= RESPONSE_EXCERPT_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => finish(outcome(0, '', `no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
    request.on('error', (error) => finish(outcome(0, '', error.message)));
    request.end(body);
  });
}
