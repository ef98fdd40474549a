import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DeadlineSweeper } from './deadline-sweeper';

const logger = pino({ level: 'silent' });

describe('DeadlineSweeper', () => {
  it('acts on what is due, leaves the rest, and tries a failure again on the next sweep', async () => {
    const pending = [
      { id: 'overdue', deadline: '2026-01-01T00:00:00Z' },
      { id: 'failing', deadline: '2026-01-01T00:00:00Z' },
      { id: 'later', deadline: '2026-02-01T00:00:00Z' },
      { id: 'never', deadline: '' },
    ];
    const acted: string[] = [];
    let failures = 1;
    const sweeper = new DeadlineSweeper({
      pending: async () => pending,
      deadlineOf: (item) => item.deadline,
      act: async (item) => {
        if (item.id === 'failing' && failures-- > 0) throw new Error('store unavailable');
        acted.push(item.id);
      },
      intervalMs: 60_000,
      logger,
      what: 'test',
    });
    await sweeper.sweep(new Date('2026-01-15T00:00:00Z'));
    expect(acted).toEqual(['overdue']);
    await sweeper.sweep(new Date('2026-01-15T00:00:01Z'));
    expect(acted).toEqual(['overdue', 'overdue', 'failing']);
    await sweeper.sweep(new Date('2026-02-01T00:00:00Z'));
    expect(acted).toContain('later');
    expect(acted).not.toContain('never');
  });

  it('sweeps once at start, then every interval, and stops', async () => {
    let sweeps = 0;
    const sweeper = new DeadlineSweeper({
      pending: async () => {
        sweeps++;
        return [];
      },
      deadlineOf: () => '',
      act: async () => {},
      intervalMs: 20,
      logger,
      what: 'test',
    });
    sweeper.start();
    await expect.poll(() => sweeps).toBeGreaterThanOrEqual(3);
    await sweeper.stop();
    const stoppedAt = sweeps;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sweeps).toBe(stoppedAt);
  });
});
