import { describe, expect, it } from 'vitest';
import { fuzzFormats, fuzzSeeds } from './format-fuzz';

// A short run for CI; `npx tsx loadtests/fuzz-formats.ts` runs 10^6 inputs.
describe('fuzzing the package parsers and index writers', () => {
  it('finds no crash, hang or smuggled field in 500 mutated inputs per target', async () => {
    const started = process.memoryUsage().rss;
    const figures = await fuzzFormats(await fuzzSeeds(), { runs: 500 });
    const grownMb = (process.memoryUsage().rss - started) / 2 ** 20;
    for (const f of figures) console.log(`${f.target}: ${f.inputs} inputs, ${f.accepted} accepted, slowest ${f.slowestMs.toFixed(1)} ms`);
    console.log(`RSS grew ${grownMb.toFixed(0)} MB`);
    expect(figures.every((f) => f.inputs === 500)).toBe(true);
    expect(grownMb).toBeLessThan(256);
  }, 120_000);
});
