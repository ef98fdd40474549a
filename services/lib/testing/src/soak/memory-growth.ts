/**
 * Growth of a long-running process from samples taken at a steady rate, as the soak
 * (`loadtests/soak.ts`) measures it. One sample against another says little about a
 * garbage-collected process: at a constant load V8 lets its old space fill for tens of
 * seconds and then collects it, and RSS follows the heap up and down (400–480 MB within
 * one 40 s cycle in a soak here). So each end of the run is a window of samples: the
 * second fifth (after caches warmed) and the last fifth. RSS compares the windows' means,
 * descriptors their medians (a burst holds a few for a moment); the heap compares floors, the least heap in use seen in each
 * window, which is close to what survives a full collection: a leak raises the floor,
 * garbage only the peaks.
 */
export interface MemorySample {
  /** resident set size, MB */
  rss: number;
  /** open descriptors */
  fds: number;
  /** V8 heap in use, MB */
  heap: number;
}

export interface WindowFigures {
  rss: { mean: number; min: number; max: number };
  fds: number;
  heapFloor: number;
}

export interface MemoryGrowth {
  warm: WindowFigures;
  end: WindowFigures;
  /** percentages from the warm window to the end one */
  rssGrowth: number;
  fdGrowth: number;
  heapFloorGrowth: number;
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
    heapFloor: Math.min(...samples.map((sample) => sample.heap)),
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
    heapFloorGrowth: percent(warm.heapFloor, end.heapFloor),
  };
}
