import { decodeEvent, type Projection } from '@packyard/platform';
import { UserDeleted, UserTokenCreated, UserTokenDeleted } from '@packyard/proto/packyard/identity/v1/events';

/** a user API key by the SHA-256 of its value: how a presented key is found */
export interface UserTokenDocument {
  id: string;
  tokenId: string;
  userId: string;
  scopes: string[];
}

export const USER_TOKENS = 'user_tokens';

const FOLLOWED = { UserTokenCreated, UserTokenDeleted, UserDeleted };

export const userTokensProjection: Projection = {
  name: 'user-tokens',
  collections: [USER_TOKENS],
  async handle(event, readModels) {
    const tokens = readModels.collection<UserTokenDocument>(USER_TOKENS);
    const decoded = decodeEvent(event, FOLLOWED);
    if (decoded?.type === 'UserTokenCreated') {
      const { tokenHash, tokenId, userId, scopes } = decoded.data;
      await tokens.upsert({ id: tokenHash, tokenId, userId, scopes });
    } else if (decoded?.type === 'UserTokenDeleted') {
      await tokens.deleteMany({ tokenId: decoded.data.tokenId });
    } else if (decoded?.type === 'UserDeleted') {
      await tokens.deleteMany({ userId: decoded.data.userId });
    }
  },
};
