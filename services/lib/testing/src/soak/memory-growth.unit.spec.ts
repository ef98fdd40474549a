import { describe, expect, it } from 'vitest';
import { liveAfterFullCollections, memoryGrowth, type MemorySample } from './memory-growth';

// A process under constant load whose heap fills for 8 samples and is then collected back
// to its live set, with RSS following the heap, as sampled every 5 s in a soak here.
const sawTooth = (samples: number, liveSet: (i: number) => number): MemorySample[] =>
  Array.from({ length: samples }, (_, i) => ({ heapLive: liveSet(i - (i % 8)), rss: 280 + liveSet(i) + (i % 8) * 16, fds: 90 }));

describe('memoryGrowth', () => {
  it('reads a heap that only fills and empties as flat, wherever the last sample falls in the cycle', () => {
    // 30 minutes of samples every 5 s, ending anywhere in a cycle
    for (const samples of [360, 362, 364, 366, 368]) {
      const growth = memoryGrowth(sawTooth(samples, () => 80));
      expect({ samples, heap: growth.heapLiveGrowth, rss: Math.abs(growth.rssGrowth) < 3 }).toEqual({ samples, heap: 0, rss: true });
    }
  });

  it('sees a live set that grows, through the garbage around it', () => {
    // 0.05 MB more kept every 5 s: 18 MB in 30 minutes
    const growth = memoryGrowth(sawTooth(360, (i) => 80 + i * 0.05));
    expect(growth.heapLiveGrowth).toBeGreaterThan(10);
    expect(growth.rssGrowth).toBeGreaterThan(2);
  });

  it('compares RSS by the means and descriptors by the medians of the second and the last fifth', () => {
    const samples = Array.from({ length: 50 }, (_, i) => ({ heapLive: 80, rss: i < 10 ? 200 : i < 40 ? 400 : 440, fds: i < 40 ? 100 : 130 }));
    // the first fifth (start-up) is left out
    expect(memoryGrowth(samples)).toMatchObject({ warm: { rss: { mean: 400 }, fds: 100 }, end: { rss: { mean: 440 }, fds: 130 }, rssGrowth: 10, fdGrowth: 30 });
  });

  it('leaves out the samples taken before the first full collection', () => {
    const samples = sawTooth(60, () => 80).map((sample, i) => (i < 14 ? { ...sample, heapLive: NaN } : sample));
    expect(memoryGrowth(samples).warm.heapLive).toBe(80);
  });

  it('reads what is live after each full collection of the main isolate from --trace-gc, not scavenges or workers', () => {
    const trace = [
      '[15604:0xf0a3670]      903 ms: Scavenge 40.1 (52.3) -> 38.2 (52.3) MB, 2.1 / 0.0 ms  (average mu = 1.000, current mu = 1.000) allocation failure;',
      '[15604:0xf0a3670]     1003 ms: Mark-Compact 56.8 (75.6) -> 47.2 (81.8) MB, 119.66 / 0.01 ms  (+ 14.5 ms in 7 steps since start of marking) finalize incremental marking via stack guard; GC in old space requested',
      '{"level":30,"msg":"listening"}',
      // a worker thread's own isolate
      '[15604:0x7f2c40001000]    61003 ms: Mark-Compact 3.9 (5.0) -> 2.9 (5.0) MB, 3.1 / 0.0 ms  (average mu = 1.000) heap profiler',
      '[15604:0xf0a3670]    91003 ms: Mark-Compact (reduce) 60.1 (80.0) -> 49.5 (70.2) MB, 80.1 / 0.0 ms  (average mu = 0.99) memory reducer',
    ].join('\n');
    expect(liveAfterFullCollections(trace)).toEqual([47.2, 49.5]);
  });

  it('needs enough samples to have windows', () => {
    expect(() => memoryGrowth(sawTooth(9, () => 80))).toThrow('at least 10 samples');
  });
});
