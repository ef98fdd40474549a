import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeb, startPackyard, waitFor, type RunningPackyard } from '@packyard/testing';
import { apiSession, registerUser, type ApiSession } from '@packyard/testing/api-session';

// Webhooks against a real HTTP receiver on 127.0.0.1: package.published arrives only once
// the edge serves the package (the receiver reads InRelease → Packages while it handles the
// request), every body's signature verifies with the secret shown at creation, a 500 is
// retried and logged, token and repository events arrive, and a delivery queued before a
// kill -9 goes out after the restart.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read bodies and answers as loose JSON and assert on them
type Json = any;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; timestamp: string; workspace: { id: string; slug: string }; data: Record<string, Json> };
  /** package.published: whether the edge's Packages listed the package while the request was handled */
  servedAtArrival?: boolean;
}

/** the README's verification, written out again: HMAC-SHA256 over "<t>.<body>" with the secret */
function verifies(secret: string, header: string | undefined, body: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) && Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

class Receiver {
  readonly received: Received[] = [];
  /** how many more requests to answer with 500, per event type */
  readonly failNext = new Map<string, number>();
  checkServed?: (json: Received['json']) => Promise<boolean>;
  private server?: Server;
  url = '';

  async start() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const json = JSON.parse(body) as Received['json'];
        const entry: Received = { headers: request.headers, body, json };
        if (json.type === 'package.published' && this.checkServed) entry.servedAtArrival = await this.checkServed(json).catch(() => false);
        this.received.push(entry);
        const failures = this.failNext.get(json.type) ?? 0;
        if (failures > 0) {
          this.failNext.set(json.type, failures - 1);
          response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver broke: try again');
          return;
        }
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`thanks for ${json.id}`);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  of(type: string) {
    return this.received.filter((entry) => entry.json.type === type);
  }

  async waitFor(type: string, count = 1, timeoutMs = 30_000) {
    return waitFor(`${count} ${type} deliveries`, async () => (this.of(type).length >= count ? this.of(type) : undefined), { timeoutMs, intervalMs: 100 });
  }

  async stop() {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const SETTINGS = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_FIRST_RETRY_S: '1', WEBHOOK_RETRY_FOR_S: '60' };

describe('webhooks', () => {
  let packyard: RunningPackyard;
  let session: ApiSession;
  let receiver: Receiver;
  let workspaceId: string;
  let work: string;
  let hook: { id: string; secret: string };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'packyard-webhooks-e2e-'));
    receiver = new Receiver();
    await receiver.start();
    packyard = await startPackyard({ env: SETTINGS, dataDir: join(work, 'data') });
    session = await registerUser(packyard);
    workspaceId = (await session.call('POST', '/workspaces', { name: 'Hooked', slug: 'hooked', description: '' })).body.id;
  }, 60_000);

  afterAll(async () => {
    await packyard?.dispose();
    await receiver?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const hooksPath = () => `/workspaces/${workspaceId}/webhooks`;
  const deliveries = async () => (await session.call('GET', `${hooksPath()}/${hook.id}/deliveries?size=100`)).body as { items: Json[]; total: number };

  it('creates a webhook whose secret is shown once, and refuses bad input with 400', async () => {
    const created = await session.call('POST', hooksPath(), {
      url: receiver.url,
      events: ['package.published', 'package.deleted', 'repository.created', 'repository.deleted', 'token.revoked'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: receiver.url, active: true, lastDelivery: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    hook = created.body;
    const listed = await session.call('GET', hooksPath());
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].secret).toBeUndefined();

    const ftp = await session.call('POST', hooksPath(), { url: 'ftp://example.com/hook', events: ['package.published'] });
    expect(ftp.status).toBe(400);
    expect(ftp.body.message).toBe('URL must start with http:// or https://');
    expect((await session.call('POST', hooksPath(), { url: receiver.url, events: [] })).status).toBe(400);
    expect((await session.call('POST', hooksPath(), { url: receiver.url, events: ['package.exploded'] })).status).toBe(400);
  });

  it('another user sees none of it (404), and a test ping arrives signed, with a User-Agent', async () => {
    const stranger = await registerUser(packyard);
    expect((await stranger.call('GET', hooksPath())).status).toBe(404);
    expect((await stranger.call('POST', `${hooksPath()}/${hook.id}/ping`)).status).toBe(404);
    expect((await stranger.call('PATCH', `${hooksPath()}/${hook.id}`, { active: false })).status).toBe(404);
    expect((await stranger.call('GET', `${hooksPath()}/${hook.id}/deliveries`)).status).toBe(404);
    const ownWorkspace = (await stranger.call('POST', '/workspaces', { name: 'Other', slug: 'other-hooks', description: '' })).body.id;
    expect((await stranger.call('GET', `/workspaces/${ownWorkspace}/webhooks/${hook.id}/deliveries`)).status).toBe(404);

    const ping = await session.call('POST', `${hooksPath()}/${hook.id}/ping`);
    expect(ping.status).toBe(202);
    const [arrived] = await receiver.waitFor('ping');
    expect(arrived.json.id).toBe(ping.body.id);
    expect(arrived.headers['packyard-delivery']).toBe(ping.body.id);
    expect(arrived.headers['packyard-event']).toBe('ping');
    expect(arrived.headers['user-agent']).toMatch(/^Packyard-Webhooks\//);
    expect(arrived.headers['content-type']).toBe('application/json');
    expect(arrived.json.workspace).toMatchObject({ id: workspaceId, slug: 'hooked' });
    expect(verifies(hook.secret, arrived.headers['packyard-signature'] as string, arrived.body)).toBe(true);
    expect(verifies('whsec_wrong', arrived.headers['packyard-signature'] as string, arrived.body)).toBe(false);
  });

  it('repository.created answered 500 is retried, and the log shows both attempts with status, duration and the answer', async () => {
    receiver.failNext.set('repository.created', 1);
    const repository = (await session.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'tools', kind: 'DEB', codename: 'bookworm', component: 'main' })).body;
    const arrivals = await receiver.waitFor('repository.created', 2);
    expect(arrivals[0].json.id).toBe(arrivals[1].json.id);
    expect(arrivals[1].json.data.repository).toMatchObject({ id: repository.id, name: 'tools', kind: 'DEB' });
    for (const arrival of arrivals) expect(verifies(hook.secret, arrival.headers['packyard-signature'] as string, arrival.body)).toBe(true);
    const logged = await waitFor('the second attempt in the log', async () => {
      const item = (await deliveries()).items.find((delivery) => delivery.event === 'repository.created');
      return item?.status === 'succeeded' ? item : undefined;
    });
    expect(logged).toMatchObject({ attempts: 2, lastStatusCode: 200, lastResponseExcerpt: `thanks for ${logged.id}`, nextAttemptAt: null });
    const detail = (await session.call('GET', `${hooksPath()}/${hook.id}/deliveries/${logged.id}`)).body;
    expect(detail.attemptLog.map((attempt: Json) => [attempt.attempt, attempt.statusCode, attempt.succeeded])).toEqual([
      [1, 500, false],
      [2, 200, true],
    ]);
    expect(detail.attemptLog[0]).toMatchObject({ responseExcerpt: 'receiver broke: try again', error: 'HTTP 500' });
    expect(detail.attemptLog[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(detail.body).data.repository.id).toBe(repository.id);
  });

  it('package.published arrives only once apt can see the package at the edge, then package.deleted, token.revoked and repository.deleted', async () => {
    const repository = (await session.call('GET', `/workspaces/${workspaceId}/repos`)).body.find((repo: Json) => repo.name === 'tools');
    const token = (await session.call('POST', `/repos/${repository.id}/tokens`, { name: 'apt-host' })).body;
    const auth = { authorization: `Basic ${Buffer.from(`${token.token}:`).toString('base64')}` };
    const edge = async (path: string) => {
      const response = await fetch(`${packyard.url}/deb/hooked/tools/debian/${path}`, { headers: auth });
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    };
    // what apt reads: InRelease, then the Packages file it lists (by its SHA256)
    receiver.checkServed = async (json) => {
      const inRelease = (await edge('dists/bookworm/InRelease')).toString('utf8');
      const listed = /^ ([0-9a-f]{64}) +\d+ (main\/binary-amd64\/Packages)$/m.exec(inRelease.slice(inRelease.indexOf('\nSHA256:')));
      if (!listed) return false;
      const packages = await edge(`dists/bookworm/${listed[2]}`);
      return sha256(packages) === listed[1] && packages.toString('utf8').includes(`SHA256: ${json.data.package.sha256}\n`);
    };

    const file = await buildDeb({ name: 'hooked-app', version: '1.0.0', arch: 'amd64', compression: 'gzip' }, work);
    const form = new FormData();
    form.set('distribution', 'debian/bookworm');
    form.set('file', new Blob([await readFile(file)]), basename(file));
    // no ?wait: the webhook alone says when it is installable
    const uploaded = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repository.id}/upload`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
    expect(uploaded.status).toBe(201);
    const pkg = (await uploaded.json()) as { id: string };

    const [published] = await receiver.waitFor('package.published');
    expect(published.servedAtArrival, 'the edge served the package when package.published arrived').toBe(true);
    expect(published.json.data).toMatchObject({
      package: { id: pkg.id, name: 'hooked-app', version: '1.0.0', architecture: 'amd64', distribution: 'debian/bookworm', sha256: sha256(await readFile(file)) },
      repository: { id: repository.id, name: 'tools' },
    });
    expect(verifies(hook.secret, published.headers['packyard-signature'] as string, published.body)).toBe(true);

    expect((await session.call('DELETE', `/workspaces/${workspaceId}/repos/${repository.id}/packages/${pkg.id}`)).status).toBe(204);
    const [deleted] = await receiver.waitFor('package.deleted');
    expect(deleted.json.data).toMatchObject({ package: { id: pkg.id, name: 'hooked-app', version: '1.0.0' }, reason: 'deleted' });

    expect((await session.call('DELETE', `/repos/${repository.id}/tokens/${token.id}`)).status).toBe(204);
    const [revoked] = await receiver.waitFor('token.revoked');
    expect(revoked.json.data).toMatchObject({ token: { id: token.id, kind: 'repository', name: 'apt-host' }, repository: { id: repository.id } });

    const accountToken = (await session.call('POST', '/tokens', { name: 'ci', scopes: ['read'] })).body;
    expect((await session.call('DELETE', `/tokens/${accountToken.id}`)).status).toBe(204);
    const revokedAccount = (await receiver.waitFor('token.revoked', 2))[1];
    expect(revokedAccount.json.data).toMatchObject({ token: { id: accountToken.id, kind: 'account', name: 'ci' } });

    expect((await session.call('DELETE', `/workspaces/${workspaceId}/repos/${repository.id}`)).status).toBe(204);
    const [repositoryDeleted] = await receiver.waitFor('repository.deleted');
    expect(repositoryDeleted.json.data.repository).toMatchObject({ id: repository.id, name: 'tools' });
    for (const entry of receiver.received) expect(verifies(hook.secret, entry.headers['packyard-signature'] as string, entry.body), entry.json.type).toBe(true);
  }, 90_000);

  it('redelivers a delivery under the same id; an inactive webhook is sent nothing', async () => {
    const ping = (await deliveries()).items.find((delivery) => delivery.event === 'ping');
    const again = await session.call('POST', `${hooksPath()}/${hook.id}/deliveries/${ping.id}/redeliver`);
    expect(again.status).toBe(202);
    const pings = await receiver.waitFor('ping', 2);
    expect(pings[1].json.id).toBe(ping.id);
    expect(pings[1].body).toBe(pings[0].body);

    const off = await session.call('PATCH', `${hooksPath()}/${hook.id}`, { active: false });
    expect(off.body).toMatchObject({ id: hook.id, active: false });
    const before = receiver.received.length;
    await session.call('POST', `/workspaces/${workspaceId}/repos`, { name: 'quiet', kind: 'RPM' });
    const ping2 = await session.call('POST', `${hooksPath()}/${hook.id}/ping`);
    await waitFor('the ping of an inactive webhook to be cancelled', async () => {
      const item = (await deliveries()).items.find((delivery) => delivery.id === ping2.body.id);
      return item?.status === 'cancelled' ? item : undefined;
    });
    expect(receiver.received.length).toBe(before);
    expect((await session.call('PATCH', `${hooksPath()}/${hook.id}`, { active: true })).body.active).toBe(true);
  });

  it('a delivery queued when the process is killed (kill -9) goes out after the restart, under the same id', async () => {
    // the receiver fails every attempt until the process has died with the delivery still queued
    receiver.failNext.set('ping', 1_000);
    const ping = (await session.call('POST', `${hooksPath()}/${hook.id}/ping`)).body;
    const attemptsOf = () => receiver.of('ping').filter((entry) => entry.json.id === ping.id).length;
    await waitFor('a failed attempt', async () => (attemptsOf() > 0 ? true : undefined));
    await packyard.stop('SIGKILL');
    receiver.failNext.set('ping', 0);
    const seen = attemptsOf();
    packyard = await startPackyard({ env: SETTINGS, dataDir: join(work, 'data') });
    session = apiSession(packyard, session.bearer, session.email);
    await waitFor('the retry after the restart', async () => (attemptsOf() > seen ? true : undefined), { timeoutMs: 60_000 });
    const logged = await waitFor('the log to show it', async () => {
      const item = (await deliveries()).items.find((delivery) => delivery.id === ping.id);
      return item?.status === 'succeeded' ? item : undefined;
    });
    expect(logged.attempts).toBeGreaterThanOrEqual(2);
  }, 120_000);
});
