import { describe, expect, it } from 'vitest';
import { bucketLabel, chartLines } from './download-chart';

describe('download chart', () => {
  it('names days and hours as the server buckets them (UTC)', () => {
    expect(bucketLabel('2026-11-24')).toBe('Nov 24');
    expect(bucketLabel('2026-11-24T07')).toBe('Nov 24, 07:00');
  });

  it('keeps the four busiest lines and adds up the rest as "Other"', () => {
    const lines = ['a', 'b', 'c', 'd', 'e', 'f'].map((label, index) => ({ label, counts: [index, 1] }));
    expect(chartLines(lines)).toEqual([...lines.slice(0, 4), { label: 'Other', counts: [9, 2] }]);
    expect(chartLines(lines.slice(0, 5))).toEqual(lines.slice(0, 5));
  });
});
