import { describe, expect, it, vi } from 'vitest';
import { createApiClient } from './api-client';
import { ApiError } from './api-error';

function stubFetch(status: number, body: unknown, statusText = '') {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return vi.fn(async (_url: RequestInfo | URL, _init?: RequestInit) => new Response(status === 204 ? null : text, { status, statusText }));
}

function clientWith(fetchStub: ReturnType<typeof stubFetch>, token?: string) {
  const onUnauthorized = vi.fn();
  const client = createApiClient({ fetch: fetchStub as unknown as typeof fetch, getIdToken: async () => token, onUnauthorized });
  return { client, onUnauthorized };
}

describe('api client', () => {
  it('calls under /api with JSON, the bearer ID token and no cookies', async () => {
    const fetchStub = stubFetch(200, { workspaces: [] });
    const { client } = clientWith(fetchStub, 'id-token-1');
    await expect(client.post('/v1/workspaces', { name: 'a' })).resolves.toEqual({ workspaces: [] });
    const [url, init] = fetchStub.mock.calls[0];
    expect(url).toBe('/api/v1/workspaces');
    expect(init?.method).toBe('POST');
    expect(init?.credentials).toBe('omit');
    expect(init?.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer id-token-1' });
    expect(init?.body).toBe('{"name":"a"}');
  });

  it('sends no authorization header when signed out or when the token cannot be had', async () => {
    const fetchStub = stubFetch(200, {});
    await clientWith(fetchStub).client.get('/v1/usage/summary');
    expect(fetchStub.mock.calls[0][1]?.headers).toEqual({ 'Content-Type': 'application/json' });

    const failing = createApiClient({
      fetch: fetchStub as unknown as typeof fetch,
      getIdToken: async () => { throw new Error('refresh failed'); },
      onUnauthorized: () => {},
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    await failing.get('/v1/usage/summary');
    expect(fetchStub.mock.calls[1][1]?.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });

  it('adds query parameters, leaving out empty ones', async () => {
    const fetchStub = stubFetch(200, { items: [], total: 0 });
    await clientWith(fetchStub).client.get('/v1/x/packages', { query: { q: '', page: 0, size: 20 } });
    expect(fetchStub.mock.calls[0][0]).toBe('/api/v1/x/packages?page=0&size=20');
  });

  it('treats 204 as an empty object', async () => {
    const fetchStub = stubFetch(204, undefined);
    await expect(clientWith(fetchStub).client.delete('/v1/tokens/1')).resolves.toEqual({});
    // A DELETE still carries a JSON body, so a JSON content type never labels an empty one.
    expect(fetchStub.mock.calls[0][1]).toMatchObject({ method: 'DELETE', body: '{}' });
  });

  it('rejects with the error object: body message, else status text, else a generic text', async () => {
    const withBody = clientWith(stubFetch(409, { status: 409, message: 'Slug taken', details: { field: 'slug' } }, 'Conflict')).client;
    await expect(withBody.get('/v1/x')).rejects.toMatchObject({ status: 409, message: 'Slug taken', details: { field: 'slug' } });
    await expect(clientWith(stubFetch(500, 'oops', 'Internal Server Error')).client.get('/v1/x')).rejects.toMatchObject({
      status: 500,
      message: 'Internal Server Error',
    });
    const bare = clientWith(stubFetch(502, undefined, '')).client.get('/v1/x');
    await expect(bare).rejects.toBeInstanceOf(ApiError);
    await expect(bare).rejects.toMatchObject({ message: 'An error occurred' });
  });

  it('sends the browser to /login on any 401, except where the caller opts out', async () => {
    const { client, onUnauthorized } = clientWith(stubFetch(401, { message: 'expired' }));
    await expect(client.get('/v1/workspaces')).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    await expect(client.post('/v1/auth/login', {}, { redirectOnUnauthorized: false })).rejects.toMatchObject({ message: 'expired' });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });
});

class FakeXhr {
  static last: FakeXhr | undefined;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  sent: unknown;
  status = 0;
  statusText = '';
  responseText = '';
  upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor() { FakeXhr.last = this; }
  open(method: string, url: string) { this.method = method; this.url = url; }
  setRequestHeader(name: string, value: string) { this.headers[name] = value; }
  send(body: unknown) { this.sent = body; }
  progress(loaded: number, total: number) { this.upload.onprogress?.({ lengthComputable: true, loaded, total } as ProgressEvent); }
  finish(status: number, statusText: string, body = '') { this.status = status; this.statusText = statusText; this.responseText = body; this.onload?.(); }
}

/** The request the client opens next, once it has been sent. */
async function sentXhr(): Promise<FakeXhr> {
  await vi.waitFor(() => expect(FakeXhr.last?.sent).toBeDefined());
  return FakeXhr.last as FakeXhr;
}

function xhrClient(onUnauthorized = vi.fn()) {
  FakeXhr.last = undefined;
  return createApiClient({
    fetch: stubFetch(200, {}) as unknown as typeof fetch,
    createXhr: () => new FakeXhr() as unknown as XMLHttpRequest,
    getIdToken: async () => 'tok',
    onUnauthorized,
  });
}

describe('uploads', () => {
  it('posts a multipart form with the file and fields, reporting progress', async () => {
    const progress: number[] = [];
    const file = new File(['x'.repeat(10)], 'hello_1.0_amd64.deb');
    const done = xhrClient().uploadFile('/v1/workspaces/w/repos/r/upload', file, { fields: { distribution: 'ubuntu/noble' }, onProgress: (p) => progress.push(p) });
    const xhr = await sentXhr();
    expect([xhr.method, xhr.url, xhr.headers.Authorization]).toEqual(['POST', '/api/v1/workspaces/w/repos/r/upload', 'Bearer tok']);
    const form = xhr.sent as FormData;
    expect(form.get('distribution')).toBe('ubuntu/noble');
    expect((form.get('file') as File).name).toBe('hello_1.0_amd64.deb');
    xhr.progress(5, 10);
    xhr.finish(201, 'Created', '{"id":"p1"}');
    await expect(done).resolves.toEqual({ id: 'p1' });
    expect(progress).toEqual([50]);
  });

  it('fails with the server message, or Network error when the connection drops', async () => {
    const rejected = xhrClient().uploadFile('/v1/u', new File(['x'], 'a.deb'));
    (await sentXhr()).finish(400, 'Bad Request', '{"message":"Distribution is required for upload"}');
    await expect(rejected).rejects.toMatchObject({ status: 400, message: 'Distribution is required for upload' });

    const dropped = xhrClient().uploadFile('/v1/u', new File(['x'], 'a.deb'));
    (await sentXhr()).onerror?.();
    await expect(dropped).rejects.toMatchObject({ message: 'Network error' });
  });

  it('sends 401 upload answers to /login too', async () => {
    const onUnauthorized = vi.fn();
    const rejected = xhrClient(onUnauthorized).uploadFile('/v1/u', new File(['x'], 'a.deb'));
    (await sentXhr()).finish(401, 'Unauthorized');
    await expect(rejected).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalled();
  });

  it('PUTs to a pre-signed URL with the content type from the headers or the file', async () => {
    const file = new File(['x'], 'a.rpm', { type: 'application/x-rpm' });
    const ok = xhrClient().putToPresignedUrl('https://blob/put?sig=1', file);
    expect((await sentXhr()).headers).toEqual({ 'Content-Type': 'application/x-rpm' });
    (await sentXhr()).finish(200, 'OK');
    await expect(ok).resolves.toBeUndefined();

    const refused = xhrClient().putToPresignedUrl('https://blob/put', file, { headers: { 'content-type': 'application/octet-stream' } });
    expect((await sentXhr()).headers).toEqual({ 'content-type': 'application/octet-stream' });
    (await sentXhr()).finish(403, 'Forbidden');
    await expect(refused).rejects.toMatchObject({ message: 'Upload failed: Forbidden (403)' });

    const dropped = xhrClient().putToPresignedUrl('https://blob/put', file);
    (await sentXhr()).onerror?.();
    await expect(dropped).rejects.toMatchObject({ message: 'Network error during upload' });
  });
});
