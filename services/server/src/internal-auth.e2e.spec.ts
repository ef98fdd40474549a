import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { ClientError, createChannel, createClient, Metadata, Status } from 'nice-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLER_METADATA_KEY, CallerAssertions, serviceCaller, type Caller } from '@packyard/platform';
import { HealthCheckResponse_ServingStatus, HealthDefinition } from '@packyard/proto/grpc/health/v1/health';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import { startPackyard, type RunningPackyard } from '@packyard/testing';

const key = randomBytes(32);
const user: Caller = { userId: 'user-1', kind: 'id_token', scopes: [], repositoryId: '', tokenId: '' };

const codeOf = (promise: Promise<unknown>) => promise.then(() => Status.OK, (error) => (error instanceof ClientError ? error.code : Promise.reject(error)));

describe('calls between modules are authenticated', () => {
  let workspace: RunningPackyard;
  let channel: ReturnType<typeof createChannel>;
  let client: ReturnType<typeof createClient<typeof WorkspaceServiceDefinition>>;
  const asserting = (assertion: string) => ({ metadata: Metadata({ [CALLER_METADATA_KEY]: assertion }) });

  beforeAll(async () => {
    workspace = await startPackyard({ targets: ['workspace'], env: { INTERNAL_AUTH_KEY: key.toString('base64') } });
    channel = createChannel(workspace.grpcAddress);
    client = createClient(WorkspaceServiceDefinition, channel);
  });
  afterAll(async () => {
    channel?.close();
    await workspace?.dispose();
  });

  it('refuses a call that carries no caller assertion with UNAUTHENTICATED', async () => {
    expect(await codeOf(client.listWorkspaces({}))).toBe(Status.UNAUTHENTICATED);
  });

  it('refuses the caller as plain JSON, the way calls carried it before, with UNAUTHENTICATED', async () => {
    const unsigned = Buffer.from(JSON.stringify({ ...serviceCaller('gateway'), kind: 'system' })).toString('base64url');
    expect(await codeOf(client.listWorkspaces({}, asserting(unsigned)))).toBe(Status.UNAUTHENTICATED);
  });

  it('refuses an assertion signed with another key with UNAUTHENTICATED', async () => {
    const forged = await new CallerAssertions(randomBytes(32)).assert(serviceCaller('repository'));
    expect(await codeOf(client.listWorkspaces({}, asserting(forged)))).toBe(Status.UNAUTHENTICATED);
  });

  it('refuses an expired assertion signed with the right key with UNAUTHENTICATED', async () => {
    const past = Math.floor(Date.now() / 1000) - 600;
    const expired = await new SignJWT({ caller: serviceCaller('repository') }).setProtectedHeader({ alg: 'HS256' }).setIssuer('packyard').setIssuedAt(past).setExpirationTime(past + 60).sign(key);
    const error = await client.listWorkspaces({}, asserting(expired)).catch((e: ClientError) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe(Status.UNAUTHENTICATED);
    expect((error as ClientError).details).toBe('the caller assertion has expired');
  });

  it('refuses an assertion without an expiry with UNAUTHENTICATED', async () => {
    const forever = await new SignJWT({ caller: serviceCaller('repository') }).setProtectedHeader({ alg: 'HS256' }).setIssuer('packyard').setIssuedAt().sign(key);
    expect(await codeOf(client.listWorkspaces({}, asserting(forever)))).toBe(Status.UNAUTHENTICATED);
  });

  it('serves a call with a valid assertion, as the caller it names', async () => {
    const assertions = new CallerAssertions(key);
    const created = await client.createWorkspace({ name: 'Mine', slug: `mine-${Date.now()}` }, asserting(await assertions.assert(user)));
    expect(created.ownerId).toBe('user-1');
    const mine = await client.listWorkspaces({}, asserting(await assertions.assert(user)));
    expect(mine.workspaces.map((w) => w.id)).toEqual([created.id]);
    const someoneElse = await client.listWorkspaces({}, asserting(await assertions.assert({ ...user, userId: 'user-2' })));
    expect(someoneElse.workspaces).toEqual([]);
  });

  it('answers gRPC health checks without an assertion (probes hold no key)', async () => {
    const health = createClient(HealthDefinition, channel);
    expect((await health.check({ service: 'workspace' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });
});
