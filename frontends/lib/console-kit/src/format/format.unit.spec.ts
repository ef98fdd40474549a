import { describe, expect, it } from 'vitest';
import { formatBytes, formatDate, formatTimeLeft, usageBarWidth, usagePercent } from './format';
import { deriveSlug, SLUG_PATTERN } from './slug';

describe('formatBytes', () => {
  it('steps by 1024 and keeps at most two decimals', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(1234567)).toBe('1.18 MB');
    expect(formatBytes(100 * 1024 * 1024)).toBe('100 MB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5 GB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3 TB');
  });
  it('stays in TB beyond it', () => {
    expect(formatBytes(2048 * 1024 ** 4)).toBe('2048 TB');
  });
});

describe('formatDate', () => {
  it('uses en-US short month, day, year and time', () => {
    const text = formatDate(new Date(2025, 2, 4, 14, 5));
    expect(text).toBe('Mar 4, 2025, 2:05 PM');
  });
  it('reads Never when there is no date', () => {
    expect(formatDate(null)).toBe('Never');
    expect(formatDate(undefined)).toBe('Never');
  });
});

describe('usage', () => {
  it('rounds the percentage and caps the bar at 100%', () => {
    expect(usagePercent(1, 3)).toBe(33);
    expect(usagePercent(2, 3)).toBe(67);
    expect(usagePercent(150, 100)).toBe(150);
    expect(usageBarWidth(usagePercent(150, 100))).toBe(100);
    expect(usagePercent(10, 0)).toBe(0);
  });
});

describe('formatTimeLeft', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    ['2026-01-08T00:00:00Z', '7 days left'],
    ['2026-01-02T00:00:00Z', '1 day left'],
    ['2026-01-01T23:59:00Z', '23 hours left'],
    ['2026-01-01T01:00:00Z', '1 hour left'],
    ['2026-01-01T00:02:30Z', '2 minutes left'],
    ['2026-01-01T00:00:30Z', 'less than a minute left'],
    ['2025-12-31T00:00:00Z', 'less than a minute left'],
  ])('%s → %s', (until, text) => expect(formatTimeLeft(until, now)).toBe(text));
});

describe('deriveSlug', () => {
  it('lowercases, drops symbols, hyphenates spaces and trims hyphens', () => {
    expect(deriveSlug('  My Team  ')).toBe('my-team');
    expect(deriveSlug('Acme & Co. -- Builds!')).toBe('acme-co-builds');
    expect(deriveSlug('--edge--')).toBe('edge');
    expect(deriveSlug('Ünïcode Ω')).toBe('ncode');
    expect(deriveSlug('!!!')).toBe('');
  });
  it('always yields something the slug pattern accepts, or nothing', () => {
    for (const name of ['A b', 'x', 'a--b', ' 9 lives ', 'Hello, World']) {
      expect(SLUG_PATTERN.test(deriveSlug(name))).toBe(true);
    }
    expect(SLUG_PATTERN.test('-bad')).toBe(false);
    expect(SLUG_PATTERN.test('Bad')).toBe(false);
  });
});
