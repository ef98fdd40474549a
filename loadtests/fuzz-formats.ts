/**
 * Nightly-sized fuzzing of the .deb/.rpm parsers and the index writers (fast-check),
 * seeded from real packages; CI runs the same properties short
 * (services/lib/testing/src/fuzz/format-fuzz.unit.spec.ts).
 * Run: npx tsx loadtests/fuzz-formats.ts [--inputs 1000000] [--seed N]
 *
 * The inputs are shared evenly by the four targets. Prints, per target, the inputs tried,
 * how many the parser accepted, the slowest input, and the process's peak RSS; exits 1 with
 * fast-check's shrunk counterexample on a crash (anything but a typed format error), a hang
 * or a smuggled index field. Every such counterexample becomes a regression test.
 */
import { parseArgs } from 'node:util';
import { fuzzFormats, fuzzSeeds } from '@packyard/testing/fuzz/format-fuzz';

const { values } = parseArgs({ options: { inputs: { type: 'string', default: '1000000' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('npx tsx loadtests/fuzz-formats.ts [--inputs 1000000] [--seed N]');
  process.exit(0);
}
const TARGETS = 4;
const runs = Math.ceil(Number(values.inputs) / TARGETS);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
const started = performance.now();
try {
  const figures = await fuzzFormats(await fuzzSeeds(), { runs, seed });
  const seconds = (performance.now() - started) / 1000;
  const total = figures.reduce((sum, f) => sum + f.inputs, 0);
  console.log(`fuzz-formats (seed ${seed}): ${total} inputs in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s), peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB, 0 failures`);
  for (const f of figures) console.log(`  ${f.target.padEnd(42)} ${String(f.inputs).padStart(8)} inputs  ${String(f.accepted).padStart(8)} accepted  slowest ${f.slowestMs.toFixed(1)} ms`);
} catch (error) {
  console.error(`fuzz-formats (seed ${seed}) found a failure:\n${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
}
