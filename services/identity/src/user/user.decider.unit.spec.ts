import { describe, it } from 'vitest';
import { deciderSpec } from '@packyard/testing/given-when-then';
import { userDecider } from './user.decider';
import type { UserEvent } from './user.events';

const at = '2025-01-01T00:00:00.000Z';
const later = '2025-02-01T00:00:00.000Z';
const userId = 'u-1';
const email = 'ada@example.com';
const spec = deciderSpec(userDecider);

const registered: UserEvent[] = [
  { type: 'UserRegistered', data: { userId, email, registeredAt: at, method: 'password' } },
  { type: 'PasswordSet', data: { userId, passwordHash: '$argon2id$old', at } },
];
const tokenCreated: UserEvent = {
  type: 'UserTokenCreated',
  data: { userId, tokenId: 't-1', name: 'laptop', scopes: ['read'], tokenHash: 'h', createdAt: at },
};

describe('user decider', () => {
  describe('RegisterUser', () => {
    it('registers with a password: UserRegistered (integration, no secret) then PasswordSet', () =>
      spec.given([]).when({ type: 'RegisterUser', userId, email, passwordHash: '$argon2id$old', at }).then(registered));

    it('registers from an OpenID Connect sign-in without a password and links the identity', () =>
      spec
        .given([])
        .when({ type: 'RegisterUser', userId, email, passwordHash: null, identity: { issuer: 'https://accounts.google.com', subject: 'g-1' }, at })
        .then([
          { type: 'UserRegistered', data: { userId, email, registeredAt: at, method: 'oidc:https://accounts.google.com' } },
          { type: 'IdentityLinked', data: { userId, issuer: 'https://accounts.google.com', subject: 'g-1', email, at } },
        ]));

    it('refuses a second registration of the account (duplicate e-mail)', () =>
      spec.given(registered).when({ type: 'RegisterUser', userId, email, passwordHash: 'x', at }).thenThrows('An account with this email already exists'));
  });

  it('refuses commands for an account that does not exist', () =>
    spec.given([]).when({ type: 'UpdateProfile', changes: { name: 'Ada' }, at }).thenThrows('User not found'));

  describe('LinkIdentity', () => {
    const link = { type: 'LinkIdentity' as const, issuer: 'https://accounts.google.com', subject: 'g-1', email, at: later };
    it('links a provider identity to an existing account', () =>
      spec.given(registered).when(link).then([{ type: 'IdentityLinked', data: { userId, issuer: link.issuer, subject: 'g-1', email, at: later } }]));
    it('links the same identity only once', () =>
      spec.given([...registered, { type: 'IdentityLinked', data: { userId, issuer: link.issuer, subject: 'g-1', email, at } }]).when(link).then([]));
  });

  it('records a password change with its time', () =>
    spec.given(registered).when({ type: 'ChangePassword', passwordHash: '$argon2id$new', at: later }).then([
      { type: 'PasswordChanged', data: { userId, passwordHash: '$argon2id$new', at: later } },
    ]));

  describe('UpdateProfile', () => {
    it('records only the settings that change', () =>
      spec
        .given(registered)
        .when({ type: 'UpdateProfile', changes: { email, name: ' Ada ', timezone: 'UTC', theme: 'dark', pushNotifications: true }, at: later })
        .then([{ type: 'ProfileUpdated', data: { userId, changes: { name: 'Ada', theme: 'dark', pushNotifications: true }, at: later } }]));

    it('leaves the settings a partial update does not name (absent fields arrive as undefined over gRPC)', () =>
      spec
        .given(registered)
        .when({ type: 'UpdateProfile', changes: { name: 'A', timezone: undefined, theme: undefined, emailNotifications: undefined, weeklyDigest: undefined }, at: later })
        .then([{ type: 'ProfileUpdated', data: { userId, changes: { name: 'A' }, at: later } }]));

    it('records nothing when nothing changes', () =>
      spec.given(registered).when({ type: 'UpdateProfile', changes: { timezone: 'UTC', theme: 'system', weeklyDigest: true }, at: later }).then([]));

    it('accepts a timezone from the spec list only', () =>
      spec.given(registered).when({ type: 'UpdateProfile', changes: { timezone: 'Europe/Berlin' }, at }).thenThrows(/^Timezone must be one of UTC, /));

    it('accepts the themes system, light and dark only', () =>
      spec.given(registered).when({ type: 'UpdateProfile', changes: { theme: 'neon' }, at }).thenThrows('Theme must be one of system, light, dark'));

    it('refuses to change the e-mail address', () =>
      spec
        .given(registered)
        .when({ type: 'UpdateProfile', changes: { email: 'eve@example.com' }, at })
        .thenThrows('Email cannot be changed. Contact support if needed.'));
  });

  describe('user API keys', () => {
    it('creates a key with its hash, de-duplicated scopes and a trimmed name', () =>
      spec.given(registered).when({ type: 'CreateUserToken', tokenId: 't-1', name: ' laptop ', scopes: ['read', 'read'], tokenHash: 'h', at }).then([tokenCreated]));

    it('needs a name and known scopes', () => {
      spec.given(registered).when({ type: 'CreateUserToken', tokenId: 't', name: ' ', scopes: ['read'], tokenHash: 'h', at }).thenThrows('Token name is required');
      spec.given(registered).when({ type: 'CreateUserToken', tokenId: 't', name: 'ci', scopes: [], tokenHash: 'h', at }).thenThrows('At least one scope is required');
      spec.given(registered).when({ type: 'CreateUserToken', tokenId: 't', name: 'ci', scopes: ['root'], tokenHash: 'h', at }).thenThrows(/Unknown scope root/);
    });

    it('deletes an own key, and a deleted or unknown key is not found', () => {
      spec.given([...registered, tokenCreated]).when({ type: 'DeleteUserToken', tokenId: 't-1', at: later }).then([
        { type: 'UserTokenDeleted', data: { userId, tokenId: 't-1', at: later } },
      ]);
      spec
        .given([...registered, tokenCreated, { type: 'UserTokenDeleted', data: { userId, tokenId: 't-1', at: later } }])
        .when({ type: 'DeleteUserToken', tokenId: 't-1', at: later })
        .thenThrows('API key not found');
    });
  });

  describe('DeleteAccount', () => {
    const deleted: UserEvent = { type: 'UserDeleted', data: { userId, deletedAt: later } };
    it('records the deletion for the other contexts', () =>
      spec.given([...registered, tokenCreated]).when({ type: 'DeleteAccount', at: later }).then([deleted]));

    it('leaves nothing of the account to act on', () => {
      spec.given([...registered, deleted]).when({ type: 'DeleteAccount', at: later }).thenThrows('User not found');
      spec.given([...registered, deleted]).when({ type: 'CreateUserToken', tokenId: 't', name: 'ci', scopes: ['read'], tokenHash: 'h', at }).thenThrows('User not found');
    });

    it('lets the address register again as a new account', () =>
      spec
        .given([...registered, tokenCreated, deleted])
        .when({ type: 'RegisterUser', userId, email, passwordHash: '$argon2id$fresh', at: later })
        .then([
          { type: 'UserRegistered', data: { userId, email, registeredAt: later, method: 'password' } },
          { type: 'PasswordSet', data: { userId, passwordHash: '$argon2id$fresh', at: later } },
        ]));
  });

  describe('two-factor authentication', () => {
    const enabled: UserEvent = { type: 'TwoFactorEnabled', data: { userId, sealedSecret: 'sealed', recoveryCodeHashes: ['r1', 'r2'], at } };
    it('enables once, with the sealed secret and the hashes of the recovery codes', () => {
      spec.given(registered).when({ type: 'EnableTwoFactor', sealedSecret: 'sealed', recoveryCodeHashes: ['r1', 'r2'], at }).then([enabled]);
      spec.given([...registered, enabled]).when({ type: 'EnableTwoFactor', sealedSecret: 'other', recoveryCodeHashes: [], at }).thenThrows('Two-factor authentication is already enabled');
    });

    it('spends each recovery code once', () => {
      const used: UserEvent = { type: 'RecoveryCodeUsed', data: { userId, codeHash: 'r1', at: later } };
      spec.given([...registered, enabled]).when({ type: 'UseRecoveryCode', codeHash: 'r1', at: later }).then([used]);
      spec.given([...registered, enabled, used]).when({ type: 'UseRecoveryCode', codeHash: 'r1', at: later }).thenThrows('Invalid authentication code');
      spec.given([...registered, enabled, used]).when({ type: 'UseRecoveryCode', codeHash: 'r2', at: later }).then([{ type: 'RecoveryCodeUsed', data: { userId, codeHash: 'r2', at: later } }]);
      spec.given(registered).when({ type: 'UseRecoveryCode', codeHash: 'r1', at: later }).thenThrows('Invalid authentication code');
    });

    it('disables only what is enabled, and the old recovery codes go with it', () => {
      const disabled: UserEvent = { type: 'TwoFactorDisabled', data: { userId, at: later } };
      spec.given([...registered, enabled]).when({ type: 'DisableTwoFactor', at: later }).then([disabled]);
      spec.given(registered).when({ type: 'DisableTwoFactor', at: later }).thenThrows('Two-factor authentication is not enabled');
      spec.given([...registered, enabled, disabled]).when({ type: 'UseRecoveryCode', codeHash: 'r2', at: later }).thenThrows('Invalid authentication code');
    });
  });
});
