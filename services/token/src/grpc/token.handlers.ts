import { randomUUID } from 'node:crypto';
import type { ServiceImplementation } from 'nice-grpc';
import { callerMaySee, forbidden, handleCommand, hashTokenValue, notFound, type Caller, type CallerContext, type EventSourcing, type PackyardClient } from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import type { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import type { AccessToken, RepoToken, TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import { ACCESS_TOKENS, REPO_TOKENS, type AccessTokenDocument, type RepoTokenDocument } from '../projections/tokens.projection';
import { accessTokenDecider } from '../tokens/access-token.decider';
import { repoTokenDecider } from '../tokens/repo-token.decider';
import type { TokenValidator } from '../tokens/token-validator';
import { ACCESS_TOKEN_PREFIX, newTokenValue, REPO_TOKEN_PREFIX } from '../tokens/token-value';
import { accessTokenStream, isIntegration, repoTokenStream } from '../tokens/token.events';

const toRepoToken = (doc: RepoTokenDocument, token = ''): RepoToken => ({
  id: doc.id,
  repositoryId: doc.repositoryId,
  name: doc.name,
  isActive: true,
  token,
  createdAt: doc.createdAt,
  lastUsedAt: doc.lastUsedAt,
  usageCount: doc.usageCount,
});

const toAccessToken = (doc: AccessTokenDocument, token = ''): AccessToken => ({
  id: doc.id,
  name: doc.name,
  scopes: doc.scopes,
  repositoryId: doc.repositoryId,
  createdAt: doc.createdAt,
  lastUsed: doc.lastUsed,
  token,
});

export function tokenHandlers(
  es: EventSourcing,
  box: SecretBox,
  validator: TokenValidator,
  repositories: PackyardClient<typeof RepositoryServiceDefinition>,
): ServiceImplementation<typeof TokenServiceDefinition, CallerContext> {
  const repoTokens = es.readModels.collection<RepoTokenDocument>(REPO_TOKENS);
  const accessTokens = es.readModels.collection<AccessTokenDocument>(ACCESS_TOKENS);

  /** the repository module answers 404 for a repository the caller may not see */
  const checkRepository = (caller: Caller, repositoryId: string) => repositories.getRepository({ workspaceId: '', id: repositoryId }, { caller });

  const visibleRepoToken = async (caller: Caller, repositoryId: string, tokenId: string) => {
    await checkRepository(caller, repositoryId);
    const doc = tokenId ? await repoTokens.get(tokenId) : undefined;
    if (!doc || doc.repositoryId !== repositoryId) throw notFound('PACKYARD_TOKEN_NOT_FOUND', 'Token not found');
    return doc;
  };

  const visibleAccessToken = async (caller: Caller, tokenId: string) => {
    const doc = tokenId ? await accessTokens.get(tokenId) : undefined;
    if (!doc || !callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.repositoryId })) throw notFound('PACKYARD_TOKEN_NOT_FOUND', 'Token not found');
    return doc;
  };

  return {
    async listRepoTokens(request, { caller }) {
      await checkRepository(caller, request.repositoryId);
      const docs = await repoTokens.find({ repositoryId: request.repositoryId }, { sort: { field: 'createdAt', direction: 1 } });
      return { tokens: docs.map((doc) => toRepoToken(doc)) };
    },

    async createRepoToken(request, { caller }) {
      const repository = await checkRepository(caller, request.repositoryId);
      const tokenId = randomUUID();
      const value = newTokenValue(REPO_TOKEN_PREFIX);
      const result = await handleCommand(
        es.events,
        repoTokenStream(tokenId),
        repoTokenDecider,
        {
          type: 'CreateRepoToken',
          tokenId,
          repositoryId: repository.id,
          ownerId: repository.ownerId,
          name: request.name,
          sealedValue: box.seal(value, tokenId),
          valueHash: hashTokenValue(value),
          now: new Date().toISOString(),
        },
        { isIntegration, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return toRepoToken((await repoTokens.get(tokenId))!, value);
    },

    async deleteRepoToken(request, { caller }) {
      const doc = await visibleRepoToken(caller, request.repositoryId, request.tokenId);
      const result = await handleCommand(es.events, repoTokenStream(doc.id), repoTokenDecider, { type: 'RevokeRepoToken', tokenId: doc.id, now: new Date().toISOString() }, {
        isIntegration,
        metadata: { caller },
      });
      validator.evict(doc.id);
      await es.caughtUp(result.lastPosition);
      return {};
    },

    async revealRepoToken(request, { caller }) {
      const doc = await visibleRepoToken(caller, request.repositoryId, request.tokenId);
      if (caller.kind === 'access_token') {
        if (!caller.scopes.includes('admin')) throw forbidden('This token lacks the "admin" scope');
        // recorded before the value leaves: revoking the account token then revokes this one
        const result = await handleCommand(es.events, repoTokenStream(doc.id), repoTokenDecider, { type: 'RecordRepoTokenReveal', tokenId: doc.id, accessTokenId: caller.tokenId, now: new Date().toISOString() }, {
          isIntegration,
          metadata: { caller },
        });
        await es.caughtUp(result.lastPosition);
      }
      return toRepoToken(doc, box.open(doc.sealedValue, doc.id).toString('utf8'));
    },

    async listAccessTokens(_request, { caller }) {
      if (!caller.userId) return { tokens: [] };
      const docs = await accessTokens.find({ ownerId: caller.userId }, { sort: { field: 'createdAt', direction: 1 } });
      return { tokens: docs.filter((doc) => callerMaySee(caller, { ownerId: doc.ownerId, repositoryId: doc.repositoryId })).map((doc) => toAccessToken(doc)) };
    },

    async createAccessToken(request, { caller }) {
      if (request.repositoryId) await checkRepository(caller, request.repositoryId);
      if (caller.kind === 'access_token') {
        // a token cannot mint a token that may do more than itself
        const wider = request.scopes.find((scope) => !caller.scopes.includes(scope));
        if (wider) throw forbidden(`This token cannot grant the "${wider}" scope it does not have`);
        if (caller.repositoryId && request.repositoryId !== caller.repositoryId) throw forbidden('This token can only create tokens limited to its own repository');
      }
      const tokenId = randomUUID();
      const value = newTokenValue(ACCESS_TOKEN_PREFIX);
      const result = await handleCommand(
        es.events,
        accessTokenStream(tokenId),
        accessTokenDecider,
        {
          type: 'CreateAccessToken',
          tokenId,
          ownerId: caller.userId,
          name: request.name,
          scopes: request.scopes,
          repositoryId: request.repositoryId,
          valueHash: hashTokenValue(value),
          now: new Date().toISOString(),
        },
        { isIntegration, metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return toAccessToken((await accessTokens.get(tokenId))!, value);
    },

    async deleteAccessToken(request, { caller }) {
      const doc = await visibleAccessToken(caller, request.id);
      const result = await handleCommand(es.events, accessTokenStream(doc.id), accessTokenDecider, { type: 'RevokeAccessToken', tokenId: doc.id, now: new Date().toISOString() }, {
        isIntegration,
        metadata: { caller },
      });
      validator.evict(doc.id);
      await es.caughtUp(result.lastPosition);
      return {};
    },

    async validateToken(request) {
      return validator.validate(request.token, request.repositoryId);
    },
  };
}
