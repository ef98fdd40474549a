import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runEdgeWorkersFrom } from '@packyard/delivery/edge-workers/edge-workers';
import { createLogger, describeSettings, loadConfig, ModuleManager, ModuleStartError, rebuildModuleProjections } from '@packyard/platform';
import { parseArgs, selectTargets, usage } from './cli';
import { clientUsage, isClientCommand, processIo, runClient } from './client/client';
import { edgeWorkerMain } from './edge-worker';
import { ALL_MODULES, TARGETS } from './modules';

async function main(): Promise<number> {
  if (isClientCommand(process.argv[2])) return runClient(process.argv.slice(2), processIo());
  const command = parseArgs(process.argv.slice(2));
  if (command.name === 'help') {
    process.stdout.write(`${usage(TARGETS, describeSettings(ALL_MODULES))}\n${clientUsage()}\n`);
    return 0;
  }
  if (command.name === 'list-targets') {
    process.stdout.write(TARGETS.map((t) => `${t.name}\t${t.description ?? ''}`).join('\n') + '\n');
    return 0;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'packyard', config.logFormat);
  if (command.name === 'rebuild-projections') {
    for (const module of selectTargets(command.targets, TARGETS).flatMap((t) => (t.name === 'all' ? t.deps : [t]))) {
      await rebuildModuleProjections(config, module.name, module.projections ?? [], logger);
    }
    return 0;
  }
  let stopAll: (reason: string, exitCode: number) => void = () => undefined;
  const manager = new ModuleManager(selectTargets(command.targets, TARGETS), config, logger, (name, error) => {
    // dskit: a module that fails while running takes the process down, named, for its supervisor to restart
    logger.fatal({ module: name, err: error }, `module ${name} failed; stopping`);
    stopAll(`module ${name} failed`, 1);
  });
  const startedAt = performance.now();
  try {
    await manager.start();
  } catch (error) {
    const name = error instanceof ModuleStartError ? error.moduleName : 'unknown';
    logger.fatal({ module: name, err: error instanceof ModuleStartError ? error.reason : error }, `module ${name} failed to start; stopping`);
    return 1;
  }
  logger.info({ targets: command.targets, modules: manager.moduleNames, ms: Math.round(performance.now() - startedAt) }, 'Packyard started');

  return new Promise<number>((resolve) => {
    let stopping = false;
    stopAll = (reason: string, exitCode: number) => {
      if (stopping) return;
      stopping = true;
      logger.info({ reason }, 'shutting down');
      const hardStop = setTimeout(() => {
        logger.warn('shutdown took too long; exiting');
        resolve(1);
      }, config.shutdownTimeoutMs + 900);
      hardStop.unref();
      manager.stop().then(() => {
        clearTimeout(hardStop);
        logger.info('stopped');
        resolve(exitCode);
      });
    };
    process.once('SIGTERM', () => stopAll('SIGTERM', 0));
    process.once('SIGINT', () => stopAll('SIGINT', 0));
  });
}

/** the edge workers' own bundle beside the program's (build.mjs), absent when the program runs from source */
const EDGE_WORKER_BUNDLE = fileURLToPath(new URL('./edge-worker.mjs', import.meta.url));

// a worker forked from a program without the workers' bundle runs this file too
if (cluster.isWorker) edgeWorkerMain();
else {
  if (existsSync(EDGE_WORKER_BUNDLE)) runEdgeWorkersFrom(EDGE_WORKER_BUNDLE);
  main().then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`packyard: ${(error as Error).message}\n`);
      process.exit(2);
    },
  );
}
