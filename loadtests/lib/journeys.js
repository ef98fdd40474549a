// User journeys written once for k6 and for the Node runner. A journey gets a client
// with `request(method, path, {headers, body}) → Promise<{status, body, json()}>` and a
// `check(name, ok)` that records a business assertion; it never imports k6 or node APIs.

const basic = (token) => `Basic ${encodeBase64(`${token}:`)}`;

function encodeBase64(text) {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const bytes = Array.from(text, (c) => c.charCodeAt(0));
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b = 0, c = 0] = bytes.slice(i, i + 3);
    const n = (a << 16) | (b << 8) | c;
    out += chars[(n >> 18) & 63] + chars[(n >> 12) & 63] + (i + 1 < bytes.length ? chars[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? chars[n & 63] : '=');
  }
  return out;
}

/** setup for the API journey: one account, workspace and repository per run */
export async function apiSetup(client) {
  const email = `load-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  const session = (await client.request('POST', '/api/v1/auth/register', { body: { email, password: 'load-test-password' } })).json();
  const auth = { authorization: `Bearer ${session.idToken}` };
  const slug = `load-${Date.now()}`;
  const workspace = (await client.request('POST', '/api/v1/workspaces', { headers: auth, body: { name: slug, slug } })).json();
  const repo = (await client.request('POST', `/api/v1/workspaces/${workspace.id}/repos`, { headers: auth, body: { name: 'load', kind: 'DEB' } })).json();
  return { idToken: session.idToken, workspaceId: workspace.id, repoId: repo.id };
}

/** what the console does when a signed-in user opens the dashboard and a repository */
export async function apiJourney(client, check, data) {
  const auth = { authorization: `Bearer ${data.idToken}` };
  const usage = await client.request('GET', '/api/v1/usage/summary', { headers: auth });
  check('usage summary answers', usage.status === 200 && typeof usage.json().storageBytesLimit === 'number');
  const workspaces = await client.request('GET', '/api/v1/workspaces', { headers: auth });
  check('the workspace is listed', workspaces.status === 200 && workspaces.json().workspaces.some((w) => w.id === data.workspaceId));
  const repos = await client.request('GET', `/api/v1/workspaces/${data.workspaceId}/repos`, { headers: auth });
  check('the repository is listed', repos.status === 200 && repos.json().some((r) => r.id === data.repoId));
  const packages = await client.request('GET', `/api/v1/workspaces/${data.workspaceId}/repos/${data.repoId}/packages?page=0&size=20`, { headers: auth });
  check('packages page answers', packages.status === 200 && Array.isArray(packages.json().items));
}

/** what `apt update` does against a repository: InRelease, then the index it lists (both revalidated) */
export async function aptJourney(client, check, data) {
  const headers = { authorization: basic(data.token) };
  const release = await client.request('GET', `${data.repositoryPath}/${data.distro}/dists/${data.codename}/InRelease`, { headers });
  check('InRelease is served', release.status === 200 && release.body.includes('-----BEGIN PGP SIGNED MESSAGE-----'));
  const etag = release.headers?.etag;
  if (etag) {
    const again = await client.request('GET', `${data.repositoryPath}/${data.distro}/dists/${data.codename}/InRelease`, { headers: { ...headers, 'if-none-match': etag } });
    check('an unchanged InRelease is 304', again.status === 304);
  }
  const denied = await client.request('GET', `${data.repositoryPath}/${data.distro}/dists/${data.codename}/InRelease`, { headers: { authorization: basic('wrong-token') } });
  check('a wrong token is 401', denied.status === 401);
}
