import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '@packyard/platform';
import { ArtifactServiceDefinition, type Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import { IdentityServiceDefinition, type UserToken } from '@packyard/proto/packyard/identity/v1/identity';
import { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import { WorkspaceServiceDefinition } from '@packyard/proto/packyard/workspace/v1/workspace';
import type { GatewayOptions } from '../app';
import { PackageSchema, toPackageJson } from './packages.routes';
import { RepositorySchema, toJson as toRepositoryJson } from './repositories.routes';
import { WorkspaceSchema, toJson as toWorkspaceJson } from './workspaces.routes';

const tags = ['user'];
const Profile = Type.Object({
  email: Type.String(),
  name: Type.String(),
  timezone: Type.String(),
  theme: Type.String({ description: 'system, light or dark' }),
  emailNotifications: Type.Boolean(),
  pushNotifications: Type.Boolean(),
  weeklyDigest: Type.Boolean(),
});
const ProfileUpdate = Type.Partial(Profile, { description: 'the fields to change, each of its own type (no null); email is accepted only unchanged' });

/**
 * The schema's validator coerces (null → "" or false, 0 → false) and drops unknown fields:
 * right for query strings, wrong for settings, where each would store a value nobody chose.
 * So the document is checked as sent, before validation touches it.
 */
function checkProfileDocument(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return Promise.reject(invalid('PACKYARD_PROFILE_INVALID', 'The profile must be a JSON object'));
  for (const [field, value] of Object.entries(body)) {
    const schema = ProfileUpdate.properties[field as keyof typeof ProfileUpdate.properties];
    if (!schema) return Promise.reject(invalid('PACKYARD_PROFILE_INVALID', `Unknown profile setting "${field}"`));
    const expected = schema.type as 'string' | 'boolean';
    if (typeof value !== expected) return Promise.reject(invalid('PACKYARD_PROFILE_INVALID', `Profile setting "${field}" must be a ${expected}`));
  }
  return Promise.resolve();
}
const Security = Type.Object({ twoFactorEnabled: Type.Boolean(), lastPasswordChange: Type.Union([Type.String(), Type.Null()]) });
const TwoFactorCode = Type.Object({ code: Type.String({ description: 'a code from the authenticator app, or a recovery code' }) });
const PasswordChange = Type.Object({ currentPassword: Type.String(), newPassword: Type.String() });
const SessionResponse = Type.Object({
  idToken: Type.String(),
  refreshToken: Type.String(),
  expiresIn: Type.Integer(),
  user: Type.Object({ id: Type.String(), email: Type.String() }),
});
const UserTokenResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  lastUsed: Type.Union([Type.String(), Type.Null()]),
});
const CreatedUserToken = Type.Object({ ...UserTokenResponse.properties, token: Type.String({ description: 'shown once' }) });
const CreateUserToken = Type.Object({ name: Type.String(), scopes: Type.Array(Type.String()) });

const SignInSession = Type.Object({
  id: Type.String(),
  userAgent: Type.String({ description: 'the browser or client the session was last used from' }),
  clientIp: Type.String({ description: 'the address the session was last used from' }),
  createdAt: Type.String(),
  lastUsedAt: Type.String(),
  current: Type.Boolean({ description: 'the session this request is made from' }),
});

/** the artifact module's largest page */
const EXPORT_PAGE_SIZE = 100;
const ExportedPackage = Type.Object({ ...PackageSchema.properties, sha256: Type.String() });
const DataExport = Type.Object({
  exportedAt: Type.String({ format: 'date-time' }),
  profile: Profile,
  apiKeys: Type.Array(UserTokenResponse, { description: 'names and scopes only: key values are never stored' }),
  workspaces: Type.Array(
    Type.Object({ ...WorkspaceSchema.properties, repositories: Type.Array(Type.Object({ ...RepositorySchema.properties, packages: Type.Array(ExportedPackage) })) }),
  ),
});

const toUserToken = (token: UserToken) => ({ id: token.id, name: token.name, scopes: token.scopes, createdAt: token.createdAt, lastUsed: token.lastUsed || null });

/** The signed-in user's own settings: profile, security, API keys (`/api/v1/user/...`). */
export async function userRoutes(parent: FastifyInstance, options: GatewayOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const identity = options.clients.client(IdentityServiceDefinition, 'identity');
  const workspaces = options.clients.client(WorkspaceServiceDefinition, 'workspace');
  const repositories = options.clients.client(RepositoryServiceDefinition, 'repository');
  const artifact = options.clients.client(ArtifactServiceDefinition, 'artifact');

  app.get('/user/profile', { schema: { tags, summary: 'The user profile', response: { 200: Profile } } }, async (request) =>
    identity.getProfile({}, { caller: request.caller }),
  );

  app.put('/user/profile', { preValidation: checkProfileDocument, schema: { tags, summary: 'Change profile settings', body: ProfileUpdate, response: { 200: Profile } } }, async (request) =>
    identity.updateProfile(request.body, { caller: request.caller }),
  );

  app.delete(
    '/user',
    {
      schema: {
        tags,
        summary: 'Delete the account: its workspaces, repositories and tokens go with it, every session ends',
        body: Type.Object({ confirmation: Type.String({ description: 'the password; for an account without one (Google sign-in only), its e-mail address' }) }),
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await identity.deleteAccount({ confirmation: request.body.confirmation }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/user/two-factor/setup',
    {
      schema: {
        tags,
        summary: 'Start enabling two-factor authentication: a new TOTP secret (RFC 6238) for an authenticator app, pending for 10 minutes',
        response: { 200: Type.Object({ secret: Type.String({ description: 'base32' }), otpauthUri: Type.String() }) },
      },
    },
    async (request) => identity.setupTwoFactor({}, { caller: request.caller }),
  );

  app.post(
    '/user/two-factor/enable',
    {
      schema: {
        tags,
        summary: 'Enable two-factor authentication with a code made from the pending secret; answers the recovery codes, shown only here',
        body: TwoFactorCode,
        response: { 200: Type.Object({ recoveryCodes: Type.Array(Type.String()) }) },
      },
    },
    async (request) => ({ recoveryCodes: (await identity.enableTwoFactor({ code: request.body.code }, { caller: request.caller })).codes }),
  );

  app.post(
    '/user/two-factor/disable',
    { schema: { tags, summary: 'Disable two-factor authentication with a current code or a recovery code', body: TwoFactorCode, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await identity.disableTwoFactor({ code: request.body.code }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  app.get('/user/security', { schema: { tags, summary: 'Two-factor state and the last password change', response: { 200: Security } } }, async (request) => {
    const security = await identity.getSecurity({}, { caller: request.caller });
    return { twoFactorEnabled: security.twoFactorEnabled, lastPasswordChange: security.lastPasswordChange || null };
  });

  app.post(
    '/user/password',
    { schema: { tags, summary: 'Change the password; signs out every other session and answers with a new one', body: PasswordChange, response: { 200: SessionResponse } } },
    async (request) => {
      const session = await identity.changePassword(request.body, { caller: request.caller });
      return { ...session, user: session.user! };
    },
  );

  app.get(
    '/user/sessions',
    { schema: { tags, summary: 'The signed-in sessions (devices) of the account, most recently used first', response: { 200: Type.Array(SignInSession) } } },
    async (request) => (await identity.listSessions({}, { caller: request.caller })).sessions,
  );

  app.delete(
    '/user/sessions/:id',
    { schema: { tags, summary: 'Sign out one session (its refresh token stops working)', params: Type.Object({ id: Type.String() }), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await identity.revokeSession({ id: request.params.id }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/user/sessions',
    { schema: { tags, summary: 'Sign out every session but the current one', response: { 204: Type.Null() } } },
    async (request, reply) => {
      await identity.revokeOtherSessions({}, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/user/export',
    {
      schema: {
        tags,
        summary: "Export Data: the profile, API key names, and every workspace with its repositories and their packages' metadata, as a JSON download",
        response: { 200: DataExport },
      },
    },
    async (request, reply) => {
      const call = { caller: request.caller };
      const allPackages = async (workspaceId: string, repositoryId: string) => {
        const packages: Package[] = [];
        for (let page = 0; ; page++) {
          const { items, total } = await artifact.listPackages({ workspaceId, repositoryId, q: '', page, size: EXPORT_PAGE_SIZE }, call);
          packages.push(...items);
          if (items.length === 0 || packages.length >= total) return packages;
        }
      };
      const [profile, keys, { workspaces: owned }] = await Promise.all([identity.getProfile({}, call), identity.listUserTokens({}, call), workspaces.listWorkspaces({}, call)]);
      // one workspace after another: an export is rare, and it must not crowd out the console's own calls
      const exported = [];
      for (const workspace of owned) {
        const { repositories: repos } = await repositories.listRepositories({ workspaceId: workspace.id }, call);
        const withPackages = [];
        for (const repository of repos) {
          const packages = await allPackages(workspace.id, repository.id);
          withPackages.push({ ...toRepositoryJson(repository), packages: packages.map((item) => ({ ...toPackageJson(item), sha256: item.sha256 })) });
        }
        exported.push({ ...toWorkspaceJson(workspace), repositories: withPackages });
      }
      const exportedAt = new Date().toISOString();
      return reply
        .header('content-disposition', `attachment; filename="packyard-export-${exportedAt.slice(0, 10)}.json"`)
        .header('cache-control', 'no-store')
        .send({ exportedAt, profile, apiKeys: keys.tokens.map(toUserToken), workspaces: exported });
    },
  );

  app.get('/user/tokens', { schema: { tags, summary: "The user's API keys", response: { 200: Type.Array(UserTokenResponse) } } }, async (request) =>
    (await identity.listUserTokens({}, { caller: request.caller })).tokens.map(toUserToken),
  );

  app.post(
    '/user/tokens',
    { schema: { tags, summary: 'Create an API key; its value is shown only in this answer', body: CreateUserToken, response: { 201: CreatedUserToken } } },
    async (request, reply) => {
      const created = await identity.createUserToken(request.body, { caller: request.caller });
      return reply.code(201).send({ ...toUserToken(created), token: created.token });
    },
  );

  app.delete(
    '/user/tokens/:id',
    { schema: { tags, summary: 'Delete an API key', params: Type.Object({ id: Type.String() }), response: { 204: Type.Null() } } },
    async (request, reply) => {
      await identity.deleteUserToken({ id: request.params.id }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );
}
