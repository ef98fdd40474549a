// Entities of the console spec §3, as the API answers them.

export interface UsageSummary {
  storageBytesUsed: number;
  storageBytesLimit: number;
  egressBytesUsed: number;
  egressBytesLimit: number;
}

/** GET /v1/usage/downloads: downloads per day (UTC) across the user's workspaces */
export interface DownloadSummary {
  buckets: string[];
  counts: number[];
  total: number;
  topPackages: { workspaceId: string; repositoryId: string; packageId: string; name: string; downloads: number }[];
  workspaces: { workspaceId: string; downloads: number }[];
}

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  description?: string;
  repositoryCount: number;
  storageBytesUsed: number;
  bandwidthBytesMonth: number;
  createdAt: string;
}

export type RepositoryKind = 'DEB' | 'RPM';

export interface Repository {
  id: string;
  name: string;
  kind: RepositoryKind;
  codename?: string;
  component?: string;
  packageCount: number;
  sizeBytes: number;
  createdAt: string;
  updatedAt: string;
  workspaceId?: string;
}

export interface CreateRepositoryPayload {
  name: string;
  kind: RepositoryKind;
  codename: string;
  component: string;
}

export const TOKEN_SCOPES = ['read', 'publish', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export interface AccessToken {
  id: string;
  name: string;
  scopes: TokenScope[];
  repositoryId?: string;
  createdAt: string;
  lastUsed?: string | null;
}

export interface CreateAccessTokenPayload {
  name: string;
  scopes: TokenScope[];
  repositoryId?: string;
}

export type Theme = 'system' | 'light' | 'dark';

export interface UserProfile {
  email: string;
  name: string;
  timezone: string;
  theme: Theme;
  emailNotifications: boolean;
  pushNotifications: boolean;
  weeklyDigest: boolean;
}

export interface UserSecurity {
  twoFactorEnabled: boolean;
  lastPasswordChange?: string | null;
}

export interface UserToken {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsed?: string | null;
}

/** A signed-in device of the account (Settings › Security › View Sessions). */
export interface UserSession {
  id: string;
  userAgent: string;
  clientIp: string;
  createdAt: string;
  lastUsedAt: string;
  /** the session this console runs in */
  current: boolean;
}

export interface CreateUserTokenPayload {
  name: string;
  scopes: TokenScope[];
}

export interface ChangePasswordPayload {
  currentPassword: string;
  newPassword: string;
}

/** What the login page may offer (GET /api/v1/auth/options). */
export interface SignInOptions {
  google: boolean;
  /** e-mail is configured: "Forgot password?" works */
  passwordReset: boolean;
}
