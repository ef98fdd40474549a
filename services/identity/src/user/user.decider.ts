import { assertNever, conflict, invalid, notFound, type Decider } from '@packyard/platform';
import { DEFAULT_PROFILE, THEMES, TIMEZONES, USER_TOKEN_SCOPES, type ProfileSettings, type UserEvent } from './user.events';

export type RegisterUser = {
  type: 'RegisterUser';
  userId: string;
  email: string;
  /** null for an account made by OpenID Connect sign-in */
  passwordHash: string | null;
  /** set when the account is made by OpenID Connect sign-in */
  identity?: { issuer: string; subject: string };
  at: string;
};
export type LinkIdentity = { type: 'LinkIdentity'; issuer: string; subject: string; email: string; at: string };
export type ChangePassword = { type: 'ChangePassword'; passwordHash: string; at: string };
export type UpdateProfile = { type: 'UpdateProfile'; changes: Partial<ProfileSettings> & { email?: string }; at: string };
export type CreateUserToken = { type: 'CreateUserToken'; tokenId: string; name: string; scopes: string[]; tokenHash: string; at: string };
export type DeleteUserToken = { type: 'DeleteUserToken'; tokenId: string; at: string };
/** the caller has confirmed it (password, or e-mail for an account without one): checked before, with the hash */
export type DeleteAccount = { type: 'DeleteAccount'; at: string };
/** the code that confirms it was checked before, against the pending secret */
export type EnableTwoFactor = { type: 'EnableTwoFactor'; sealedSecret: string; recoveryCodeHashes: string[]; at: string };
export type DisableTwoFactor = { type: 'DisableTwoFactor'; at: string };
export type UseRecoveryCode = { type: 'UseRecoveryCode'; codeHash: string; at: string };
export type UserCommand =
  | RegisterUser
  | LinkIdentity
  | ChangePassword
  | UpdateProfile
  | CreateUserToken
  | DeleteUserToken
  | EnableTwoFactor
  | DisableTwoFactor
  | UseRecoveryCode
  | DeleteAccount;

export interface UserToken {
  id: string;
  name: string;
  scopes: string[];
  tokenHash: string;
  createdAt: string;
}

export type UserState =
  | { status: 'unregistered' }
  /** the address may register again: a new account, nothing of the old one */
  | { status: 'deleted'; userId: string }
  | {
      status: 'registered';
      userId: string;
      email: string;
      registeredAt: string;
      passwordHash: string | null;
      /** null until the password is changed after registration (the settings page shows 'Never') */
      passwordChangedAt: string | null;
      identities: { issuer: string; subject: string }[];
      profile: ProfileSettings;
      tokens: UserToken[];
      /** null while sign-in asks for the password only */
      twoFactor: { sealedSecret: string; recoveryCodeHashes: string[] } | null;
    };

const NAME_MAX = 100;

function validateProfile(changes: UpdateProfile['changes'], email: string): Partial<ProfileSettings> {
  if (changes.email !== undefined && changes.email.trim().toLowerCase() !== email) {
    throw invalid('PACKYARD_IDENTITY_EMAIL_IMMUTABLE', 'Email cannot be changed. Contact support if needed.');
  }
  if (changes.timezone !== undefined && !(TIMEZONES as readonly string[]).includes(changes.timezone)) {
    throw invalid('PACKYARD_IDENTITY_TIMEZONE_INVALID', `Timezone must be one of ${TIMEZONES.join(', ')}`);
  }
  if (changes.theme !== undefined && !(THEMES as readonly string[]).includes(changes.theme)) {
    throw invalid('PACKYARD_IDENTITY_THEME_INVALID', `Theme must be one of ${THEMES.join(', ')}`);
  }
  const name = changes.name?.trim();
  if (name !== undefined && name.length > NAME_MAX) {
    throw invalid('PACKYARD_IDENTITY_NAME_TOO_LONG', `Display name must be at most ${NAME_MAX} characters long`);
  }
  const { email: _email, ...settings } = changes;
  // a setting left out is unchanged: an absent optional field arrives as undefined, which
  // merged into the profile would blank it (timezone "", notifications off)
  const named = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Partial<ProfileSettings>;
  for (const flag of ['emailNotifications', 'pushNotifications', 'weeklyDigest'] as const) {
    if (named[flag] !== undefined && typeof named[flag] !== 'boolean') throw invalid('PACKYARD_IDENTITY_PROFILE_INVALID', `${flag} must be true or false`);
  }
  return { ...named, ...(name !== undefined ? { name } : {}) };
}

function validateToken(command: CreateUserToken) {
  if (command.name.trim() === '') throw invalid('PACKYARD_IDENTITY_TOKEN_NAME_REQUIRED', 'Token name is required');
  if (command.name.trim().length > NAME_MAX) throw invalid('PACKYARD_IDENTITY_TOKEN_NAME_TOO_LONG', `Token name must be at most ${NAME_MAX} characters long`);
  if (command.scopes.length === 0) throw invalid('PACKYARD_IDENTITY_TOKEN_SCOPES_REQUIRED', 'At least one scope is required');
  const unknown = command.scopes.filter((scope) => !(USER_TOKEN_SCOPES as readonly string[]).includes(scope));
  if (unknown.length) throw invalid('PACKYARD_IDENTITY_TOKEN_SCOPE_INVALID', `Unknown scope ${unknown.join(', ')}; scopes are ${USER_TOKEN_SCOPES.join(', ')}`);
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'unregistered' }),

  decide(command, state) {
    if (command.type === 'RegisterUser') {
      if (state.status === 'registered') throw conflict('PACKYARD_IDENTITY_EMAIL_TAKEN', 'An account with this email already exists');
      const { userId, email, at } = command;
      const method = command.identity ? `oidc:${command.identity.issuer}` : 'password';
      return [
        { type: 'UserRegistered', data: { userId, email, registeredAt: at, method } },
        ...(command.passwordHash ? [{ type: 'PasswordSet' as const, data: { userId, passwordHash: command.passwordHash, at } }] : []),
        ...(command.identity ? [{ type: 'IdentityLinked' as const, data: { userId, ...command.identity, email, at } }] : []),
      ];
    }
    if (state.status !== 'registered') throw notFound('PACKYARD_IDENTITY_USER_NOT_FOUND', 'User not found');
    const { userId } = state;
    switch (command.type) {
      case 'LinkIdentity': {
        const linked = state.identities.some((identity) => identity.issuer === command.issuer && identity.subject === command.subject);
        if (linked) return [];
        return [{ type: 'IdentityLinked', data: { userId, issuer: command.issuer, subject: command.subject, email: command.email, at: command.at } }];
      }
      case 'ChangePassword':
        return [{ type: 'PasswordChanged', data: { userId, passwordHash: command.passwordHash, at: command.at } }];
      case 'UpdateProfile': {
        const changes = validateProfile(command.changes, state.email);
        const effective = Object.fromEntries(
          Object.entries(changes).filter(([key, value]) => state.profile[key as keyof ProfileSettings] !== value),
        ) as Partial<ProfileSettings>;
        if (Object.keys(effective).length === 0) return [];
        return [{ type: 'ProfileUpdated', data: { userId, changes: effective, at: command.at } }];
      }
      case 'CreateUserToken': {
        validateToken(command);
        const { tokenId, scopes, tokenHash, at } = command;
        return [{ type: 'UserTokenCreated', data: { userId, tokenId, name: command.name.trim(), scopes: [...new Set(scopes)], tokenHash, createdAt: at } }];
      }
      case 'DeleteUserToken':
        if (!state.tokens.some((token) => token.id === command.tokenId)) {
          throw notFound('PACKYARD_IDENTITY_USER_TOKEN_NOT_FOUND', 'API key not found');
        }
        return [{ type: 'UserTokenDeleted', data: { userId, tokenId: command.tokenId, at: command.at } }];
      case 'EnableTwoFactor':
        if (state.twoFactor) throw conflict('PACKYARD_IDENTITY_TWO_FACTOR_ENABLED', 'Two-factor authentication is already enabled');
        return [{ type: 'TwoFactorEnabled', data: { userId, sealedSecret: command.sealedSecret, recoveryCodeHashes: command.recoveryCodeHashes, at: command.at } }];
      case 'DisableTwoFactor':
        if (!state.twoFactor) throw conflict('PACKYARD_IDENTITY_TWO_FACTOR_DISABLED', 'Two-factor authentication is not enabled');
        return [{ type: 'TwoFactorDisabled', data: { userId, at: command.at } }];
      case 'UseRecoveryCode':
        // each code works once
        if (!state.twoFactor?.recoveryCodeHashes.includes(command.codeHash)) throw invalid('PACKYARD_IDENTITY_TWO_FACTOR_CODE_INVALID', 'Invalid authentication code');
        return [{ type: 'RecoveryCodeUsed', data: { userId, codeHash: command.codeHash, at: command.at } }];
      case 'DeleteAccount':
        return [{ type: 'UserDeleted', data: { userId, deletedAt: command.at } }];
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    if (event.type === 'UserRegistered') {
      const { userId, email, registeredAt } = event.data;
      return { status: 'registered', userId, email, registeredAt, passwordHash: null, passwordChangedAt: null, identities: [], profile: DEFAULT_PROFILE, tokens: [], twoFactor: null };
    }
    if (state.status !== 'registered') return state;
    switch (event.type) {
      case 'PasswordSet':
        return { ...state, passwordHash: event.data.passwordHash };
      case 'PasswordChanged':
        return { ...state, passwordHash: event.data.passwordHash, passwordChangedAt: event.data.at };
      case 'IdentityLinked':
        return { ...state, identities: [...state.identities, { issuer: event.data.issuer, subject: event.data.subject }] };
      case 'ProfileUpdated':
        return { ...state, profile: { ...state.profile, ...event.data.changes } };
      case 'UserTokenCreated': {
        const { tokenId, name, scopes, tokenHash, createdAt } = event.data;
        return { ...state, tokens: [...state.tokens, { id: tokenId, name, scopes, tokenHash, createdAt }] };
      }
      case 'UserTokenDeleted':
        return { ...state, tokens: state.tokens.filter((token) => token.id !== event.data.tokenId) };
      case 'TwoFactorEnabled':
        return { ...state, twoFactor: { sealedSecret: event.data.sealedSecret, recoveryCodeHashes: event.data.recoveryCodeHashes } };
      case 'TwoFactorDisabled':
        return { ...state, twoFactor: null };
      case 'RecoveryCodeUsed':
        return state.twoFactor
          ? { ...state, twoFactor: { ...state.twoFactor, recoveryCodeHashes: state.twoFactor.recoveryCodeHashes.filter((hash) => hash !== event.data.codeHash) } }
          : state;
      case 'UserDeleted':
        return { status: 'deleted', userId: state.userId };
      default:
        return assertNever(event);
    }
  },
};
