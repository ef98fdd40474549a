import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChecked } from '../clients/run-command';
import { REPO_ROOT } from '../program';
import { spawnDaemon, toolsUnavailable, waitFor } from './daemon';

export interface RunningKafkaBroker {
  /** bootstrap servers, host:port */
  brokers: string[];
  /** the next request of that Kafka API (e.g. 14, SyncGroup) is answered with that error code (e.g. 42, INVALID_REQUEST) */
  failNextRequest(apiKey: number, errorCode: number): Promise<void>;
  stop(): Promise<void>;
}

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'kafka-mock-broker.c');
const MOCK_HEADER = '/usr/include/librdkafka/rdkafka_mock.h';
export const KAFKA_BROKER_PACKAGES = ['librdkafka-dev', 'gcc'];
export const DEFAULT_CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'packyard');

/** why the mock broker cannot be built on this machine, or undefined when it can */
export function kafkaBrokerUnavailable(): string | undefined {
  return (
    toolsUnavailable(['gcc'], KAFKA_BROKER_PACKAGES) ??
    (existsSync(MOCK_HEADER) ? undefined : `${MOCK_HEADER} not installed (Debian packages ${KAFKA_BROKER_PACKAGES.join(' ')}; as root, node .ci/debian-tools.mjs installs them)`)
  );
}

/** compiles the broker once per version of its source into `cacheDir` */
async function brokerBinary(cacheDir: string): Promise<string> {
  const source = readFileSync(SOURCE);
  const binary = join(cacheDir, `kafka-mock-broker-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(cacheDir, { recursive: true });
  // built beside its final name and renamed, so a concurrent start never runs half a binary
  const building = `${binary}.${process.pid}`;
  await runChecked('gcc', ['-O2', '-Wall', '-o', building, SOURCE, '-lrdkafka']);
  renameSync(building, binary);
  return binary;
}

/**
 * A Kafka-protocol broker for tests: librdkafka's mock cluster (kafka-mock-broker.c),
 * built with gcc on first use. It is NOT Apache Kafka: kafkajs producers, consumers and
 * consumer groups work against it, but it has no controller (CreateTopics fails; topics
 * are created with 4 partitions on first produce or metadata request) and some admin
 * APIs are missing. A result that depends on it says so.
 */
export async function startKafkaBroker(options: { dir?: string; brokers?: number; timeoutMs?: number } = {}): Promise<RunningKafkaBroker> {
  const unavailable = kafkaBrokerUnavailable();
  if (unavailable) throw new Error(`the Kafka mock broker cannot start: ${unavailable}`);
  const binary = await brokerBinary(options.dir ?? DEFAULT_CACHE_DIR);
  const daemon = spawnDaemon('kafka-mock-broker', binary, [String(options.brokers ?? 3)]);
  try {
    const line = await waitFor('the mock broker to print its bootstrap servers', async () => /^(\S+)\n/.exec(daemon.output())?.[1], Date.now() + (options.timeoutMs ?? 10_000), [daemon]);
    const failNextRequest = async (apiKey: number, errorCode: number) => {
      const said = `failing the next request of API ${apiKey} with error ${errorCode}\n`;
      const before = daemon.output().split(said).length;
      daemon.child.stdin!.write(`fail ${apiKey} ${errorCode}\n`);
      await waitFor('the mock broker to take the error', async () => daemon.output().split(said).length > before || undefined, Date.now() + 5_000, [daemon]);
    };
    return { brokers: line.split(','), failNextRequest, stop: () => daemon.stop() };
  } catch (error) {
    await daemon.stop();
    throw error;
  }
}
