/**
 * Growth of a long-running process from samples taken at a steady rate, as the soak
 * (`loadtests/soak.ts`) measures it. One sample against another says little about a
 * garbage-collected process: at a constant load V8 lets its old space fill for tens of
 * seconds and then collects it, and RSS follows the heap up and down (400–480 MB within
 * one 40 s cycle in a soak here). So each end of the run is a window of samples: the
 * second fifth (after caches warmed) and the last fifth. RSS compares the windows' means,
 * descriptors their medians (a burst holds a few for a moment), and the heap what is live
 * after full collections (V8's --trace-gc `Mark-Compact … -> N MB`), their medians: a leak
 * raises that, garbage only the peaks between collections.
 */
export interface MemorySample {
  /** resident set size, MB */
  rss: number;
  /** open descriptors */
  fds: number;
  /** V8 heap live after the latest full collection, MB (NaN before the first) */
  heapLive: number;
}

export interface WindowFigures {
  rss: { mean: number; min: number; max: number };
  fds: number;
  heapLive: number;
}

export interface MemoryGrowth {
  warm: WindowFigures;
  end: WindowFigures;
  /** percentages from the warm window to the end one */
  rssGrowth: number;
  fdGrowth: number;
  heapLiveGrowth: number;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function windowFigures(samples: readonly MemorySample[]): WindowFigures {
  const rss = samples.map((sample) => sample.rss);
  return {
    rss: { mean: mean(rss), min: Math.min(...rss), max: Math.max(...rss) },
    fds: median(samples.map((sample) => sample.fds)),
    heapLive: median(samples.map((sample) => sample.heapLive).filter((live) => !Number.isNaN(live))),
  };
}

const percent = (from: number, to: number) => ((to - from) / from) * 100;

/** growth from the second fifth of `samples` to the last fifth; needs at least 10 samples */
export function memoryGrowth(samples: readonly MemorySample[]): MemoryGrowth {
  if (samples.length < 10) throw new Error(`memoryGrowth needs at least 10 samples, got ${samples.length}`);
  const fifth = Math.floor(samples.length / 5);
  const warm = windowFigures(samples.slice(fifth, 2 * fifth));
  const end = windowFigures(samples.slice(samples.length - fifth));
  return {
    warm,
    end,
    rssGrowth: percent(warm.rss.mean, end.rss.mean),
    fdGrowth: percent(warm.fds, end.fds),
    heapLiveGrowth: percent(warm.heapLive, end.heapLive),
  };
}

const FULL_GC = /\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/g;

/**
 * The heap sizes (MB) live after each full collection in V8's --trace-gc lines, in order, of
 * the process's main isolate: worker threads trace their own small heaps under their own
 * isolate address, so the isolate with the largest heap is taken.
 */
export function liveAfterFullCollections(traceGc: string): number[] {
  const byIsolate = new Map<string, number[]>();
  for (const [, isolate, live] of traceGc.matchAll(FULL_GC)) byIsolate.set(isolate, [...(byIsolate.get(isolate) ?? []), Number(live)]);
  const heaps = [...byIsolate.values()];
  return heaps.sort((a, b) => Math.max(...b) - Math.max(...a))[0] ?? [];
}
