import { inject } from 'vitest';
import type { RunningKafkaBroker } from './kafka-broker.server';
import type { RunningRadosgw } from './radosgw.server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the control endpoint of servers/global-setup.ts */
    packyardServers: string;
  }
}

export type SharedServer = 'radosgw' | 'kafka';
/** what crosses to the test files: the server's address, not its methods (stop, error injection) */
type Address<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };
/** the server's address, or why it cannot exist here (the suite then skips with that reason) */
export type Shared<T> = { server: Address<T>; skip?: undefined } | { server?: undefined; skip: string };

async function shared<T>(name: SharedServer): Promise<Shared<T>> {
  const control = inject('packyardServers');
  if (!control) throw new Error('packyardServers is not provided: run through vitest.config.ts, whose globalSetup starts the shared servers');
  const response = await fetch(`${control}/${name}`, { method: 'POST', signal: AbortSignal.timeout(300_000) });
  const body = (await response.json()) as Address<T> & { unavailable?: string; error?: string };
  if (body.error) throw new Error(`the shared ${name} did not start: ${body.error}`);
  if (body.unavailable) return { skip: body.unavailable };
  return { server: body };
}

/**
 * The run's radosgw (Ceph's S3 gateway, single node, objects in memory), started on the
 * first call of any test file and shared by all of them. Use fresh buckets.
 */
export const sharedRadosgw = () => shared<RunningRadosgw>('radosgw');

/**
 * The run's Kafka-protocol broker (librdkafka's mock cluster, not Apache Kafka), started
 * on the first call and shared. Use fresh topic and group names.
 */
export const sharedKafkaBroker = () => shared<RunningKafkaBroker>('kafka');
