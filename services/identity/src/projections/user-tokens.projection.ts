import type { Projection } from '@packyard/platform';
import type { UserDeleted, UserTokenCreated, UserTokenDeleted } from '../user/user.events';

/** a user API key by the SHA-256 of its value: how a presented key is found */
export interface UserTokenDocument {
  id: string;
  tokenId: string;
  userId: string;
  scopes: string[];
}

export const USER_TOKENS = 'user_tokens';

export const userTokensProjection: Projection = {
  name: 'user-tokens',
  collections: [USER_TOKENS],
  async handle(event, readModels) {
    const tokens = readModels.collection<UserTokenDocument>(USER_TOKENS);
    if (event.type === 'UserTokenCreated') {
      const { tokenHash, tokenId, userId, scopes } = event.data as UserTokenCreated['data'];
      await tokens.upsert({ id: tokenHash, tokenId, userId, scopes });
    } else if (event.type === 'UserTokenDeleted') {
      await tokens.deleteMany({ tokenId: (event.data as UserTokenDeleted['data']).tokenId });
    } else if (event.type === 'UserDeleted') {
      await tokens.deleteMany({ userId: (event.data as UserDeleted['data']).userId });
    }
  },
};
