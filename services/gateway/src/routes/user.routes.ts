import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '@packyard/platform';
import { IdentityServiceDefinition, type UserToken } from '@packyard/proto/packyard/identity/v1/identity';
import type { GatewayOptions } from '../app';

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
const CreatedUserToken = Type.Composite([UserTokenResponse, Type.Object({ token: Type.String({ description: 'shown once' }) })]);
const CreateUserToken = Type.Object({ name: Type.String(), scopes: Type.Array(Type.String()) });

const toUserToken = (token: UserToken) => ({ id: token.id, name: token.name, scopes: token.scopes, createdAt: token.createdAt, lastUsed: token.lastUsed || null });

/** The signed-in user's own settings: profile, security, API keys (`/api/v1/user/...`). */
export async function userRoutes(parent: FastifyInstance, options: GatewayOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const identity = options.clients.client(IdentityServiceDefinition, 'identity');

  app.get('/user/profile', { schema: { tags, summary: 'The user profile', response: { 200: Profile } } }, async (request) =>
    identity.getProfile({}, { caller: request.caller }),
  );

  app.put('/user/profile', { preValidation: checkProfileDocument, schema: { tags, summary: 'Change profile settings', body: ProfileUpdate, response: { 200: Profile } } }, async (request) =>
    identity.updateProfile(request.body, { caller: request.caller }),
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
