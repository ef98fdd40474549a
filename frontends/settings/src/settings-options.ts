import type { Theme, UserProfile } from '@packyard/console-kit';

/** Spec §2: the timezones the profile offers. */
export const TIMEZONES = [
  'UTC',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'Europe/London',
  'Europe/Paris',
  'Asia/Tokyo',
] as const;

export const THEMES: Theme[] = ['system', 'light', 'dark'];

/** Spec §9 and §2: what the form shows for fields the profile leaves out. */
export const PROFILE_DEFAULTS: Omit<UserProfile, 'email'> = {
  name: '',
  timezone: 'UTC',
  theme: 'system',
  emailNotifications: true,
  pushNotifications: false,
  weeklyDigest: true,
};

export function withProfileDefaults(profile: Partial<UserProfile> | undefined): UserProfile {
  const defined = Object.fromEntries(Object.entries(profile ?? {}).filter(([, value]) => value !== undefined && value !== null));
  return { email: '', ...PROFILE_DEFAULTS, ...defined } as UserProfile;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/Firefox\//, 'Firefox'],
  [/Chrom(e|ium)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/^curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad/, 'iOS'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux|X11/, 'Linux'],
];

/** "Firefox on Linux" from a user agent, for the session list; the raw text when it is not a browser we know. */
export function describeDevice(userAgent: string): string {
  if (!userAgent) return 'Unknown device';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? userAgent;
}
