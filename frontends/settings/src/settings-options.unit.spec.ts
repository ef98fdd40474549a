import { describe, expect, it } from 'vitest';
import { withProfileDefaults } from './settings-options';

describe('profile defaults', () => {
  it('fills what the server leaves out: UTC, system theme, email and digest on, push off', () => {
    expect(withProfileDefaults({ email: 'a@b.c', name: null as unknown as string })).toEqual({
      email: 'a@b.c',
      name: '',
      timezone: 'UTC',
      theme: 'system',
      emailNotifications: true,
      pushNotifications: false,
      weeklyDigest: true,
    });
  });
  it('keeps what the server says, including switched-off notifications', () => {
    const profile = withProfileDefaults({ email: 'a@b.c', timezone: 'Asia/Tokyo', theme: 'dark', emailNotifications: false, weeklyDigest: false });
    expect(profile).toMatchObject({ timezone: 'Asia/Tokyo', theme: 'dark', emailNotifications: false, weeklyDigest: false });
  });
});
