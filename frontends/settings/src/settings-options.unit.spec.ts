import { describe, expect, it } from 'vitest';
import { describeDevice, withProfileDefaults } from './settings-options';

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

describe('device names in the session list', () => {
  it('names the browser and the system of common user agents', () => {
    expect(describeDevice('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on Linux');
    expect(describeDevice('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0')).toBe('Edge on Windows');
    expect(describeDevice('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36')).toBe('Chrome on macOS');
    expect(describeDevice('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1')).toBe('Safari on iOS');
    expect(describeDevice('Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36')).toBe('Chrome on Android');
  });
  it('shows what it cannot name as it came, and says when nothing came', () => {
    expect(describeDevice('curl/8.5.0')).toBe('curl');
    expect(describeDevice('my-deploy-script/2')).toBe('my-deploy-script/2');
    expect(describeDevice('')).toBe('Unknown device');
  });
});
