import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { freePort } from './daemon';

it('hands out loopback ports below the range of outgoing connections, each once, that a server can then listen on', async () => {
  const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  expect(new Set(ports).size).toBe(40);
  expect(ports.every((port) => port >= 10_000 && port < ephemeralFrom)).toBe(true);
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});
