import { defineSettings, HTTP_SERVER_SETTINGS, integer, loadConfig, readSettings } from '@packyard/platform';
import { CLUSTER_PROCESSES, startCluster } from './cluster';

/** `npm run cluster`: the settings of the cluster command itself (PORT and DATA_DIR as in single-node mode) */
const CLUSTER_SETTINGS = defineSettings({
  aptPort: integer('APT_PORT', 8081, 'npm run cluster: port of apt and dnf (the delivery replicas, round-robin)', 0, 65535),
});

const USAGE = `npm run cluster: every module its own process on a Kafka-protocol broker and radosgw.

  PORT       console and API, round-robin over the two gateways (default 8080)
  APT_PORT   apt and dnf, round-robin over the two delivery replicas (default 8081)
  DATA_DIR   the cluster's files go to DATA_DIR/cluster, emptied at each start:
             radosgw keeps the blobs in memory, so nothing would match them (default ./data)
  LOG_LEVEL  of every process (default info)

Ctrl-C or SIGTERM stops everything.
`;

const pad = (text: string, width: number) => text.padEnd(width);

async function main(): Promise<number> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const config = loadConfig();
  const http = readSettings(HTTP_SERVER_SETTINGS, process.env);
  const own = readSettings(CLUSTER_SETTINGS, process.env);
  const problems = [...http.errors, ...own.errors];
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  const width = Math.max(...CLUSTER_PROCESSES.map((p) => p.name.length), 'cluster'.length);
  const print = (name: string, line: string) => process.stdout.write(`${pad(name, width)} | ${line}\n`);

  const started = performance.now();
  print('cluster', 'starting the Kafka-protocol broker, radosgw and every module (about a minute)');
  const cluster = await startCluster({ dataDir: config.dataDir, port: http.values.port, aptPort: own.values.aptPort, logLevel: process.env.LOG_LEVEL, onLine: print });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const rows = cluster.processes.map(
    (p) => `  ${pad(p.name, width)}  pid ${pad(String(p.pid()), 8)} http ${pad(new URL(p.url).port, 6)} grpc ${pad(p.grpcAddress.split(':')[1], 6)} metrics ${pad(new URL(p.metricsUrl).port, 6)} rss ${Math.round((p.rssBytes() ?? 0) / 2 ** 20)} MiB`,
  );
  process.stdout.write(
    [
      '',
      `Packyard cluster healthy in ${seconds} s`,
      `  console and API  ${cluster.consoleUrl}   (round-robin over gateway-1, gateway-2)`,
      `  apt and dnf      ${cluster.aptUrl}   (round-robin over delivery-1, delivery-2)`,
      ...rows,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );

  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      print('cluster', `${signal}: stopping every process`);
      cluster.stop().then(() => {
        print('cluster', 'stopped');
        resolve(0);
      });
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`packyard cluster: ${(error as Error).message}\n`);
    process.exit(2);
  },
);
