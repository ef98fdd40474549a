import type { Logger } from 'pino';

/**
 * Runs `sweep` at once (what a crash left behind goes at start) and then every `everyMs`
 * (what was still too recent to tell goes soon after), until the returned function is
 * called. A failed sweep is logged and tried again next time.
 */
export async function sweepAbandoned(what: string, everyMs: number, logger: Logger, sweep: (cutoff: Date) => Promise<number>): Promise<() => void> {
  const run = async () => {
    try {
      const removed = await sweep(new Date(Date.now() - everyMs));
      if (removed > 0) logger.info({ removed }, `removed abandoned ${what}`);
    } catch (error) {
      logger.warn({ err: error }, `could not remove abandoned ${what}`);
    }
  };
  await run();
  const timer = setInterval(() => void run(), everyMs).unref();
  return () => clearInterval(timer);
}
