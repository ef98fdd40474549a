/**
 * TokenService.ValidateToken over real gRPC on loopback, the call the gateway makes for
 * every account-token request and delivery for every apt/dnf request it has no verdict for.
 * Run: npx tsx loadtests/validate-token.bench.ts   (BENCH_TOKENS=400 BENCH_CALLS=20000 BENCH_CONCURRENCY=32)
 *
 * Starts the single-node program, creates BENCH_TOKENS repository tokens through the API,
 * then measures, with BENCH_CONCURRENCY calls in flight:
 *   cold:   the first validation of each token (read model lookup by hash, then cached)
 *   cached: BENCH_CALLS validations spread over the same tokens (answered from memory)
 *   health: BENCH_CALLS grpc.health.v1 Check calls to the same server, the transport's own cost
 */
import { createChannel, createClient, Metadata } from 'nice-grpc';
import { HealthDefinition } from '@packyard/proto/grpc/health/v1/health';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { CALLER_METADATA_KEY, serviceCaller } from '@packyard/platform';
import { startPackyard } from '@packyard/testing';
import { registerUser } from '@packyard/testing/api-session';

const TOKENS = Number(process.env.BENCH_TOKENS ?? 400);
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure<R>(label: string, requests: R[], call: (request: R) => Promise<{ valid: boolean }>) {
  const latencies: number[] = [];
  let next = 0;
  let invalid = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++];
        const t0 = performance.now();
        if (!(await call(request)).valid) invalid++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  if (invalid) throw new Error(`${label}: ${invalid} tokens were refused`);
  console.log(
    `${label.padEnd(8)} ${String(requests.length).padStart(6)} calls  ${Math.round(requests.length / seconds).toString().padStart(6)} calls/s  p50 ${percentile(latencies, 50).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  );
}

const packyard = await startPackyard();
try {
  const user = await registerUser(packyard);
  const workspace = (await user.call('POST', '/workspaces', { name: 'Bench', slug: `bench-${Date.now()}` })).body;
  const repository = (await user.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'bench' })).body;
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) tokens.push((await user.call('POST', `/repos/${repository.id}/tokens`, { name: `t${i}` })).body.token);

  const channel = createChannel(packyard.grpcAddress);
  const client = createClient(TokenServiceDefinition, channel);
  // as delivery calls it: a caller assertion per call (signed once, then reused for 30 s)
  const assertions = packyard.callerAssertions();
  const validate = async (request: { token: string; repositoryId: string }) =>
    client.validateToken(request, { metadata: Metadata({ [CALLER_METADATA_KEY]: await assertions.assert(serviceCaller('delivery')) }) });
  console.log(`ValidateToken over gRPC (loopback), ${TOKENS} repository tokens, ${CONCURRENCY} calls in flight`);
  await measure('cold', tokens.map((token) => ({ token, repositoryId: repository.id })), validate);
  await measure('cached', Array.from({ length: CALLS }, (_, i) => ({ token: tokens[i % TOKENS], repositoryId: repository.id })), validate);
  const health = createClient(HealthDefinition, channel);
  await measure('health', Array.from({ length: CALLS }, () => 'token'), async (service) => ({ valid: (await health.check({ service })).status === 1 }));
  channel.close();
} finally {
  await packyard.dispose();
}
