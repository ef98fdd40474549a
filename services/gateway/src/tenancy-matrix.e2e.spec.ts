import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';

// Every /api/v1 route of the OpenAPI document that names a resource, called with another
// user's ids, by every kind of credential: the status DESIGN §5 and §8 say.
//   no credentials → 401; an account token without the route's scope → 403;
//   anything allowed to ask → 404 (another user's resource is not found, never 403/200).

/** 'account': what only a signed-in user (an ID token) may do, never an account token */
type Scope = 'read' | 'publish' | 'admin' | 'account';
interface Operation {
  method: string;
  path: string;
  body?: JsonSchema;
}
interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

let packyard: RunningPackyard;
let alice: ApiSession;
let bob: ApiSession;
const bobs: Record<'workspace' | 'repo' | 'repoToken' | 'accessToken' | 'package' | 'session' | 'webhook' | 'delivery', string> = {
  workspace: '',
  repo: '',
  repoToken: '',
  accessToken: '',
  package: '',
  session: '',
  webhook: '',
  delivery: '',
};
const credentials: { name: string; bearer: string; scopes: Scope[] }[] = [];

/** the scope DESIGN §5 gives a route: read lists and downloads, publish uploads and deletes packages, admin manages the rest */
function scopeOf({ method, path }: Operation): Scope {
  // the account itself (its sessions) is the signed-in user's alone: no account token reaches it
  if (path.startsWith('/user/sessions')) return 'account';
  // uploads, copies, promotions and retention runs add or delete packages
  if (/\/(upload|copy|promote|retention\/apply)$/.test(path)) return 'publish';
  if (method === 'DELETE' && /\/packages\/\{[^}]+\}$/.test(path)) return 'publish';
  if (path.endsWith('/reveal')) return 'admin';
  return method === 'GET' ? 'read' : 'admin';
}

/** fills a path's parameters with Bob's ids: `{id}` is the resource named by the segment before it */
function withBobsIds(path: string): string {
  const segments = path.split('/');
  return segments
    .map((segment, index) => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (!param) return segment;
      const owner = param === 'id' ? segments[index - 1] : param;
      if (/^workspaces?(Id)?$/.test(owner)) return bobs.workspace;
      if (/^repos?(Id)?$/.test(owner) || owner === 'repositoryId') return bobs.repo;
      if (owner === 'tokenId' || (owner === 'tokens' && path.startsWith('/repos/'))) return bobs.repoToken;
      if (owner === 'tokens') return bobs.accessToken;
      if (/^packages?(Id)?$/.test(owner)) return bobs.package;
      if (owner === 'sessions') return bobs.session;
      if (owner === 'webhookId') return bobs.webhook;
      if (owner === 'deliveryId') return bobs.delivery;
      throw new Error(`no id of Bob's for {${param}} in ${path}`);
    })
    .join('/');
}

/** a body the route's schema accepts, so the answer is about the resource, not the body */
function exampleOf(schema: JsonSchema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.type === 'object') return Object.fromEntries((schema.required ?? []).map((name) => [name, exampleOf(schema.properties?.[name])]));
  if (schema.type === 'array') return [];
  if (schema.type === 'boolean') return false;
  if (schema.type === 'integer' || schema.type === 'number') return 1;
  return 'tenancy-probe';
}

async function call(operation: Operation, bearer: string): Promise<number> {
  const url = `${packyard.url}/api/v1${withBobsIds(operation.path)}`;
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  let body: BodyInit | undefined;
  if (operation.path.endsWith('/upload')) {
    const form = new FormData();
    form.append('distribution', 'ubuntu/noble');
    form.append('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText('probe') }))]), 'probe.deb');
    body = form;
  } else if (operation.method !== 'GET' && operation.method !== 'DELETE') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(exampleOf(operation.body) ?? {});
  }
  const response = await fetch(url, { method: operation.method, headers, body });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  packyard = await startPackyard();
  [alice, bob] = [await registerUser(packyard), await registerUser(packyard)];
  bobs.workspace = (await bob.call('POST', '/workspaces', { name: 'Bob', slug: `bob-${Date.now()}` })).body.id;
  bobs.repo = (await bob.call('POST', `/workspaces/${bobs.workspace}/repos`, { name: 'apt', kind: 'DEB' })).body.id;
  bobs.repoToken = (await bob.call('POST', `/repos/${bobs.repo}/tokens`, { name: 'bobs' })).body.id;
  bobs.accessToken = (await bob.call('POST', '/tokens', { name: 'bobs', scopes: ['admin'] })).body.id;
  const form = new FormData();
  form.append('distribution', 'ubuntu/noble');
  form.append('file', new Blob([new Uint8Array(await craftDeb({ control: validControlText('bobs-package') }))]), 'bobs-package.deb');
  const uploaded = await fetch(`${packyard.url}/api/v1/workspaces/${bobs.workspace}/repos/${bobs.repo}/upload`, { method: 'POST', headers: { authorization: `Bearer ${bob.bearer}` }, body: form });
  bobs.package = ((await uploaded.json()) as { id: string }).id;
  bobs.session = (await bob.call('GET', '/user/sessions')).body[0].id;
  bobs.webhook = (await bob.call('POST', `/workspaces/${bobs.workspace}/webhooks`, { url: 'http://127.0.0.1:9/bob', events: ['token.revoked'] })).body.id;
  bobs.delivery = (await bob.call('POST', `/workspaces/${bobs.workspace}/webhooks/${bobs.webhook}/ping`)).body.id;

  credentials.push({ name: 'no credentials', bearer: '', scopes: [] }, { name: 'ID token', bearer: alice.bearer, scopes: ['read', 'publish', 'admin', 'account'] });
  for (const scopes of [['read'], ['publish'], ['admin'], ['read', 'publish', 'admin']] as Scope[][]) {
    const bearer = (await alice.call('POST', '/tokens', { name: `matrix-${scopes.join('-')}`, scopes })).body.token;
    credentials.push({ name: `account token [${scopes.join(',')}]`, bearer, scopes });
  }
});

afterAll(async () => {
  await packyard?.dispose();
});

describe('tenancy matrix from the OpenAPI document', () => {
  it("answers every route with another user's ids as the design says, for every credential", async () => {
    const document = (await (await fetch(`${packyard.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> } }>>;
    };
    const operations: Operation[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/api/v1/') || !path.includes('{')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        operations.push({ method: method.toUpperCase(), path: path.slice('/api/v1'.length), body: operation.requestBody?.content?.['application/json']?.schema });
      }
    }
    expect(operations.length).toBeGreaterThan(10);

    const wrong: string[] = [];
    let cells = 0;
    for (const operation of operations) {
      for (const credential of credentials) {
        const expected = !credential.bearer ? 401 : credential.scopes.includes(scopeOf(operation)) ? 404 : 403;
        const status = await call(operation, credential.bearer);
        cells++;
        if (status !== expected) wrong.push(`${operation.method} ${operation.path} as ${credential.name}: ${status}, expected ${expected}`);
      }
    }
    console.log(`tenancy matrix: ${operations.length} routes × ${credentials.length} credentials = ${cells} calls, ${wrong.length} wrong`);
    expect(wrong).toEqual([]);
    // and Bob's things are all still there
    expect((await bob.call('GET', `/workspaces/${bobs.workspace}/repos/${bobs.repo}/packages`)).body.total).toBe(1);
    expect((await bob.call('GET', `/repos/${bobs.repo}/tokens`)).body.map((token: { id: string }) => token.id)).toEqual([bobs.repoToken]);
  });
});
