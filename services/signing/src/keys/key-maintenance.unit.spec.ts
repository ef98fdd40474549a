import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '@packyard/platform';
import { KEY_SCHEDULES, type KeyScheduleDocument } from '../projections/signing-keys.projection';
import { KeyMaintenance } from './key-maintenance';

const DAY = 86_400_000;
const now = new Date('2026-06-01T00:00:00.000Z');
const at = (days: number) => new Date(now.getTime() + days * DAY).toISOString();

describe('key maintenance', () => {
  let readModels: SqliteReadModelStore;
  let registry: Registry;
  let calls: string[];
  let maintenance: KeyMaintenance;

  beforeEach(async () => {
    readModels = SqliteReadModelStore.open(':memory:');
    registry = new Registry();
    calls = [];
    const keys = {
      roll: async (repositoryId: string, overlapUntil: Date, reason: string) => void calls.push(`roll ${repositoryId} until ${overlapUntil.toISOString()} (${reason})`),
      retirePrevious: async (repositoryId: string) => void calls.push(`retire ${repositoryId}`),
    };
    maintenance = new KeyMaintenance(keys, readModels, { rotateBeforeSeconds: 30 * 86_400, overlapSeconds: 14 * 86_400, intervalMs: 60_000 }, pino({ level: 'silent' }), registry);
    const schedules = readModels.collection<KeyScheduleDocument>(KEY_SCHEDULES);
    await schedules.upsert({ id: 'overlap-over', currentFingerprint: 'A', currentExpiresAt: at(700), overlapUntil: at(-0.001) });
    await schedules.upsert({ id: 'overlap-running', currentFingerprint: 'B', currentExpiresAt: at(700), overlapUntil: at(3) });
    await schedules.upsert({ id: 'expiring', currentFingerprint: 'C', currentExpiresAt: at(29), overlapUntil: '' });
    await schedules.upsert({ id: 'near', currentFingerprint: 'D', currentExpiresAt: at(45), overlapUntil: '' });
    await schedules.upsert({ id: 'far', currentFingerprint: 'E', currentExpiresAt: at(400), overlapUntil: '' });
    await schedules.upsert({ id: 'never', currentFingerprint: 'F', currentExpiresAt: '', overlapUntil: '' });
  });
  afterEach(() => readModels.close());

  const gauge = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;

  it('ends overlaps that are over and rolls a key before it expires, leaving the rest alone', async () => {
    await maintenance.check(now);
    expect(calls.sort()).toEqual(['retire overlap-over', `roll expiring until ${at(14)} (expiry)`]);
  });

  it('reports keys near expiry and when the first one expires', async () => {
    await maintenance.check(now);
    // "expiring" is rolled in this pass; "near" is inside twice the rotate-before window
    expect(await gauge('packyard_signing_keys_near_expiry')).toBe(1);
    expect(await gauge('packyard_signing_key_next_expiry_timestamp_seconds')).toBe(Date.parse(at(45)) / 1000);
  });
});
