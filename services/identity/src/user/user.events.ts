import type { DomainEvent } from '@packyard/platform';
import type {
  UserDeleted as UserDeletedData,
  UserRegistered as UserRegisteredData,
  UserTokenCreated as UserTokenCreatedData,
  UserTokenDeleted as UserTokenDeletedData,
} from '@packyard/proto/packyard/identity/v1/events';

export const TIMEZONES = ['UTC', 'America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', 'Europe/London', 'Europe/Paris', 'Asia/Tokyo'] as const;
export const THEMES = ['system', 'light', 'dark'] as const;
export const USER_TOKEN_SCOPES = ['read', 'publish', 'admin'] as const;

export interface ProfileSettings {
  name: string;
  timezone: string;
  theme: string;
  emailNotifications: boolean;
  pushNotifications: boolean;
  weeklyDigest: boolean;
}

/** the spec's defaults: timezone UTC, theme system, e-mail on, push off, digest on */
export const DEFAULT_PROFILE: ProfileSettings = {
  name: '',
  timezone: 'UTC',
  theme: 'system',
  emailNotifications: true,
  pushNotifications: false,
  weeklyDigest: true,
};

/** integration: other contexts learn of new accounts; it carries no secret */
export type UserRegistered = DomainEvent<'UserRegistered', UserRegisteredData>;
/**
 * Password hashes (argon2id, never the password) are domain events so that the aggregate
 * alone decides sign-in; they stay in identity's own log and never reach the bus.
 */
export type PasswordSet = DomainEvent<'PasswordSet', { userId: string; passwordHash: string; at: string }>;
export type PasswordChanged = DomainEvent<'PasswordChanged', { userId: string; passwordHash: string; at: string }>;
export type IdentityLinked = DomainEvent<'IdentityLinked', { userId: string; issuer: string; subject: string; email: string; at: string }>;
export type ProfileUpdated = DomainEvent<'ProfileUpdated', { userId: string; changes: Partial<ProfileSettings>; at: string }>;
export type UserTokenCreated = DomainEvent<'UserTokenCreated', UserTokenCreatedData>;
export type UserTokenDeleted = DomainEvent<'UserTokenDeleted', UserTokenDeletedData>;

/** the TOTP secret is sealed with the master key; recovery codes are kept as SHA-256 hashes */
export type TwoFactorEnabled = DomainEvent<'TwoFactorEnabled', { userId: string; sealedSecret: string; recoveryCodeHashes: string[]; at: string }>;
export type TwoFactorDisabled = DomainEvent<'TwoFactorDisabled', { userId: string; at: string }>;
export type RecoveryCodeUsed = DomainEvent<'RecoveryCodeUsed', { userId: string; codeHash: string; at: string }>;
/** integration: the other contexts delete what the account owned */
export type UserDeleted = DomainEvent<'UserDeleted', UserDeletedData>;

export type UserEvent =
  | UserRegistered
  | PasswordSet
  | PasswordChanged
  | IdentityLinked
  | ProfileUpdated
  | UserTokenCreated
  | UserTokenDeleted
  | TwoFactorEnabled
  | TwoFactorDisabled
  | RecoveryCodeUsed
  | UserDeleted;

export const isUserIntegrationEvent = (event: UserEvent) => event.type === 'UserRegistered' || event.type === 'UserDeleted';

export const userStream = (userId: string) => `user-${userId}`;
