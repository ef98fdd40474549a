import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { TokenServiceDefinition, type AccessToken, type RepoToken } from '@packyard/proto/packyard/token/v1/token';
import type { GatewayOptions } from '../app';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const RepoTokenSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  token: Type.Optional(Type.String({ description: 'present when created; otherwise revealed on request' })),
  isActive: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: nullable(Type.String({ format: 'date-time' })),
  usageCount: Type.Integer(),
});

const AccessTokenSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.Union([Type.Literal('read'), Type.Literal('publish'), Type.Literal('admin')])),
  repositoryId: nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsed: nullable(Type.String({ format: 'date-time' })),
  token: Type.Optional(Type.String({ description: 'only in the answer to the creation: it cannot be seen again' })),
});

type ScopeName = 'read' | 'publish' | 'admin';

const repoTokenJson = ({ id, name, token, isActive, createdAt, lastUsedAt, usageCount }: RepoToken) => ({
  id,
  name,
  ...(token ? { token } : {}),
  isActive,
  createdAt,
  lastUsedAt: lastUsedAt || null,
  usageCount,
});

const accessTokenJson = ({ id, name, scopes, repositoryId, createdAt, lastUsed, token }: AccessToken) => ({
  id,
  name,
  scopes: scopes as ScopeName[],
  repositoryId: repositoryId || null,
  createdAt,
  lastUsed: lastUsed || null,
  ...(token ? { token } : {}),
});

const InRepository = Type.Object({ id: Type.String() });
const RepoTokenPath = Type.Object({ id: Type.String(), tokenId: Type.String() });

/** `/v1/repos/{id}/tokens` (repository tokens for apt/dnf) and `/v1/tokens` (account access tokens). */
export const tokensRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const tokens = clients.client(TokenServiceDefinition, 'token');
  const security = [{ bearer: [] }];
  const repoTags = ['repository tokens'];
  const accessTags = ['access tokens'];

  app.get('/repos/:id/tokens', { schema: { tags: repoTags, security, params: InRepository, response: { 200: Type.Array(RepoTokenSchema) } } }, async (request) =>
    (await tokens.listRepoTokens({ repositoryId: request.params.id }, { caller: request.caller })).tokens.map(repoTokenJson),
  );

  app.post(
    '/repos/:id/tokens',
    { schema: { tags: repoTags, security, params: InRepository, body: Type.Object({ name: Type.Optional(Type.String()) }), response: { 201: RepoTokenSchema } } },
    async (request, reply) => {
      const created = await tokens.createRepoToken({ repositoryId: request.params.id, name: request.body.name ?? '' }, { caller: request.caller });
      return reply.code(201).send(repoTokenJson(created));
    },
  );

  app.delete('/repos/:id/tokens/:tokenId', { schema: { tags: repoTags, security, params: RepoTokenPath } }, async (request, reply) => {
    await tokens.deleteRepoToken({ repositoryId: request.params.id, tokenId: request.params.tokenId }, { caller: request.caller });
    return reply.code(204).send();
  });

  app.get(
    '/repos/:id/tokens/:tokenId/reveal',
    {
      // a secret: for the signed-in user or a token that may manage tokens anyway
      config: { scope: 'admin' },
      schema: {
        tags: repoTags,
        security,
        description: 'The value of a repository token, for a signed-in user or an account token with the admin scope. Revoking that account token revokes the repository tokens it revealed.',
        params: RepoTokenPath,
        response: { 200: Type.Object({ token: Type.String() }) },
      },
    },
    async (request, reply) => {
      const { token } = await tokens.revealRepoToken({ repositoryId: request.params.id, tokenId: request.params.tokenId }, { caller: request.caller });
      reply.header('cache-control', 'no-store');
      return { token };
    },
  );

  app.get('/tokens', { schema: { tags: accessTags, security, response: { 200: Type.Array(AccessTokenSchema) } } }, async (request) =>
    (await tokens.listAccessTokens({}, { caller: request.caller })).tokens.map(accessTokenJson),
  );

  app.post(
    '/tokens',
    {
      schema: {
        tags: accessTags,
        security,
        description: 'Creates an account access token; its value is in this answer only',
        body: Type.Object({ name: Type.Optional(Type.String()), scopes: Type.Optional(Type.Array(Type.String())), repositoryId: Type.Optional(nullable(Type.String())) }),
        response: { 201: AccessTokenSchema },
      },
    },
    async (request, reply) => {
      const { name = '', scopes = [], repositoryId } = request.body;
      const created = await tokens.createAccessToken({ name, scopes, repositoryId: repositoryId ?? '' }, { caller: request.caller });
      return reply.code(201).send(accessTokenJson(created));
    },
  );

  app.delete('/tokens/:id', { schema: { tags: accessTags, security, params: Type.Object({ id: Type.String() }) } }, async (request, reply) => {
    await tokens.deleteAccessToken({ id: request.params.id }, { caller: request.caller });
    return reply.code(204).send();
  });
};
