import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { kafkaBrokerUnavailable, startKafkaBroker, type RunningKafkaBroker } from './kafka-broker.server';
import { radosgwUnavailable, startRadosgw, type RunningRadosgw } from './radosgw.server';
import type { SharedServer } from './shared-servers';

/**
 * Vitest's global setup (vitest.config.ts): the real servers a test run shares. Nothing
 * starts here; a loopback control endpoint, provided to every project as
 * `packyardServers`, starts a server the first time a test file asks for it and hands the
 * same one to every later file. Runs that never ask (unit specs, most files) pay nothing;
 * the teardown stops whatever started.
 */
export default async function setup(project: TestProject) {
  const starters: Record<SharedServer, { unavailable: () => string | undefined; start: () => Promise<RunningRadosgw | RunningKafkaBroker> }> = {
    radosgw: { unavailable: radosgwUnavailable, start: () => startRadosgw() },
    kafka: { unavailable: kafkaBrokerUnavailable, start: () => startKafkaBroker() },
  };
  const started = new Map<SharedServer, Promise<RunningRadosgw | RunningKafkaBroker>>();
  const control = createServer((request, response) => {
    const name = request.url?.slice(1) as SharedServer;
    const answer = (status: number, body: object) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (!(name in starters)) return answer(404, { error: `no server named ${name}` });
    const unavailable = starters[name].unavailable();
    if (unavailable) return answer(200, { unavailable });
    if (!started.has(name)) started.set(name, starters[name].start());
    started.get(name)!.then(
      ({ stop: _stop, ...address }) => answer(200, address),
      (error: Error) => answer(500, { error: error.message }),
    );
  });
  // a start can take minutes on a loaded machine; Node's default would cut the answer at 300 s
  control.requestTimeout = 0;
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide('packyardServers', `http://127.0.0.1:${(control.address() as AddressInfo).port}`);
  return async () => {
    control.close();
    const running = await Promise.allSettled(started.values());
    for (const server of running) if (server.status === 'fulfilled') await server.value.stop();
  };
}
