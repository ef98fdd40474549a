#!/usr/bin/env node
// The k6 scenarios on a machine without k6: the same journeys (lib/journeys.js) and
// traffic shapes (lib/stages.js), virtual users as concurrent async loops, latency
// percentiles and check rates printed at the end, exit 1 when a threshold fails.
//
//   node loadtests/run.mjs --scenario api --shape smoke --base-url http://127.0.0.1:8080
//   node loadtests/run.mjs --scenario apt --repository-path /deb/ws/repo --token pyd_rt_… --base-url …
import { parseArgs } from 'node:util';
import { apiJourney, apiSetup, aptJourney } from './lib/journeys.js';
import { SHAPES } from './lib/stages.js';

const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'api' },
    shape: { type: 'string', default: 'smoke' },
    'base-url': { type: 'string', default: process.env.BASE_URL ?? 'http://127.0.0.1:8080' },
    'repository-path': { type: 'string' },
    token: { type: 'string' },
    distro: { type: 'string', default: 'ubuntu' },
    codename: { type: 'string', default: 'noble' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (args.help) {
  console.log('usage: node loadtests/run.mjs --scenario api|apt [--shape smoke|load|stress] [--base-url URL] [--repository-path /deb/<ws>/<repo> --token TOKEN]');
  process.exit(0);
}
const baseUrl = args['base-url'];
const stages = SHAPES[args.shape];
if (!stages) throw new Error(`unknown shape ${args.shape}; choose from ${Object.keys(SHAPES).join(', ')}`);

const latencies = [];
let requests = 0;
let failedRequests = 0;
const checks = new Map();

const client = {
  async request(method, path, { headers = {}, body } = {}) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    latencies.push(performance.now() - started);
    requests++;
    if (response.status >= 500) failedRequests++;
    return { status: response.status, body: text, headers: Object.fromEntries(response.headers), json: () => JSON.parse(text) };
  },
};
const check = (name, ok) => {
  const entry = checks.get(name) ?? { passed: 0, failed: 0 };
  if (ok) entry.passed++;
  else entry.failed++;
  checks.set(name, entry);
};

async function waitForHealth() {
  for (let i = 0; i < 60; i++) {
    const response = await fetch(`${baseUrl}/api/actuator/health`).catch(() => undefined);
    if (response?.status === 200) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`${baseUrl} did not become healthy`);
}

await waitForHealth();
const journey =
  args.scenario === 'api'
    ? { run: apiJourney, data: await apiSetup(client) }
    : { run: aptJourney, data: { repositoryPath: args['repository-path'], token: args.token, distro: args.distro, codename: args.codename } };
latencies.length = 0;
requests = 0;

// virtual users follow the stages' targets, ramping linearly within each stage
const started = performance.now();
const totalSeconds = stages.reduce((sum, s) => sum + s.duration, 0);
const targetAt = (elapsed) => {
  let from = 0;
  let at = 0;
  for (const stage of stages) {
    if (elapsed <= at + stage.duration) return Math.round(from + ((stage.target - from) * (elapsed - at)) / stage.duration);
    from = stage.target;
    at += stage.duration;
  }
  return 0;
};
const vus = new Set();
async function virtualUser(id) {
  while ((performance.now() - started) / 1000 < totalSeconds && id < targetAt((performance.now() - started) / 1000)) {
    await journey.run(client, check, journey.data).catch(() => check('journey completed', false));
  }
  vus.delete(id);
}
while ((performance.now() - started) / 1000 < totalSeconds) {
  const target = Math.max(1, targetAt((performance.now() - started) / 1000));
  for (let id = 0; id < target; id++) {
    if (!vus.has(id)) {
      vus.add(id);
      virtualUser(id);
    }
  }
  await new Promise((r) => setTimeout(r, 100));
}
while (vus.size) await new Promise((r) => setTimeout(r, 50));

const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] : 0);
console.log(`scenario ${args.scenario}, shape ${args.shape}: ${requests} requests in ${seconds.toFixed(1)} s (${(requests / seconds).toFixed(0)} req/s)`);
console.log(`latency ms: p50 ${pct(50).toFixed(2)}  p95 ${pct(95).toFixed(2)}  p99 ${pct(99).toFixed(2)}  max ${(latencies.at(-1) ?? 0).toFixed(2)}`);
let checksPassed = 0;
let checksTotal = 0;
for (const [name, { passed, failed }] of checks) {
  console.log(`  ${failed ? '✗' : '✓'} ${name}: ${passed}/${passed + failed}`);
  checksPassed += passed;
  checksTotal += passed + failed;
}
const checkRate = checksTotal ? checksPassed / checksTotal : 0;
const thresholds = [
  [`checks rate ${(checkRate * 100).toFixed(2)}% > 99%`, checkRate > 0.99],
  [`failed requests ${failedRequests} / ${requests} < 1%`, failedRequests / Math.max(1, requests) < 0.01],
];
for (const [text, ok] of thresholds) console.log(`${ok ? 'PASS' : 'FAIL'} ${text}`);
process.exit(thresholds.every(([, ok]) => ok) ? 0 : 1);
