import { describe, expect, it } from 'vitest';
import { memoryGrowth, type MemorySample } from './memory-growth';

// A process under constant load whose heap fills for 8 samples and is then collected back
// to its live set, with RSS following the heap, as sampled every 5 s in a soak here.
const sawTooth = (samples: number, liveSet: (i: number) => number): MemorySample[] =>
  Array.from({ length: samples }, (_, i) => {
    const heap = liveSet(i) + (i % 8) * 16;
    return { heap, rss: 280 + heap, fds: 90 };
  });

describe('memoryGrowth', () => {
  it('reads a heap that only fills and empties as flat, wherever the last sample falls in the cycle', () => {
    // 30 minutes of samples every 5 s, ending anywhere in a cycle
    for (const samples of [360, 362, 364, 366, 368]) {
      const growth = memoryGrowth(sawTooth(samples, () => 80));
      expect({ samples, heap: growth.heapFloorGrowth, rss: Math.abs(growth.rssGrowth) < 3 }).toEqual({ samples, heap: 0, rss: true });
    }
  });

  it('sees a live set that grows, through the garbage around it', () => {
    // 0.05 MB more kept every 5 s: 18 MB in 30 minutes
    const growth = memoryGrowth(sawTooth(360, (i) => 80 + i * 0.05));
    expect(growth.end.heapFloor).toBeCloseTo(80 + 288 * 0.05, 5);
    expect(growth.heapFloorGrowth).toBeGreaterThan(10);
  });

  it('compares RSS by the means and descriptors by the medians of the second and the last fifth', () => {
    const samples = Array.from({ length: 50 }, (_, i) => ({ heap: 80, rss: i < 10 ? 200 : i < 40 ? 400 : 440, fds: i < 40 ? 100 : 130 }));
    // the first fifth (start-up) is left out
    expect(memoryGrowth(samples)).toMatchObject({ warm: { rss: { mean: 400 }, fds: 100 }, end: { rss: { mean: 440 }, fds: 130 }, rssGrowth: 10, fdGrowth: 30 });
  });

  it('needs enough samples to have windows', () => {
    expect(() => memoryGrowth(sawTooth(9, () => 80))).toThrow('at least 10 samples');
  });
});
