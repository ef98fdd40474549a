import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ReadModelStore } from '@packyard/platform';
import { KEY_SCHEDULES, type KeyScheduleDocument } from '../projections/signing-keys.projection';
import type { KeyRing } from './key-ring';

export interface KeyMaintenanceSettings {
  /** a current key expiring sooner than this is rolled */
  rotateBeforeSeconds: number;
  /** how long the old key signs beside the one an expiry roll makes */
  overlapSeconds: number;
  /** how often the schedules are checked */
  intervalMs: number;
}

/** keys expiring within this many rotate-before windows count as near expiry in the metric */
const NEAR_EXPIRY_WINDOWS = 2;

/**
 * The reaction to time passing: ends overlaps that are over (from then on only the new key
 * signs, and the repository's indices are signed again), and rolls a key before it expires
 * so `apt update` never meets an expired key. Both go through the key stream, so a second
 * replica doing the same check at once loses its append and changes nothing.
 */
export class KeyMaintenance {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly nearExpiry: Gauge;
  private readonly nextExpiry: Gauge;

  constructor(
    private readonly keys: Pick<KeyRing, 'roll' | 'retirePrevious'>,
    private readonly readModels: ReadModelStore,
    private readonly settings: KeyMaintenanceSettings,
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.nearExpiry = new Gauge({
      name: 'packyard_signing_keys_near_expiry',
      help: 'Current repository keys that expire within twice the rotate-before window (SIGNING_KEY_ROTATE_BEFORE_DAYS); they are rolled automatically inside it.',
      registers: [registry],
    });
    this.nextExpiry = new Gauge({
      name: 'packyard_signing_key_next_expiry_timestamp_seconds',
      help: 'When the first current repository key expires (Unix seconds; absent while no key expires).',
      registers: [registry],
    });
  }

  async start(): Promise<void> {
    const tick = () => {
      this.running = this.check(new Date())
        .catch((error) => this.logger.error({ err: error }, 'signing key maintenance failed; trying again on the next check'))
        .finally(() => {
          this.timer = setTimeout(tick, this.settings.intervalMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.running;
    clearTimeout(this.timer);
  }

  /** one pass over every repository's key schedule */
  async check(now: Date): Promise<void> {
    const schedules = await this.readModels.collection<KeyScheduleDocument>(KEY_SCHEDULES).find({});
    const rotateBy = now.getTime() + this.settings.rotateBeforeSeconds * 1000;
    let near = 0;
    let next = Infinity;
    for (const schedule of schedules) {
      if (schedule.overlapUntil && Date.parse(schedule.overlapUntil) <= now.getTime()) {
        await this.keys.retirePrevious(schedule.id);
        this.logger.info({ repositoryId: schedule.id }, 'overlap of a key roll ended; only the new key signs');
      }
      if (!schedule.currentExpiresAt) continue;
      const expires = Date.parse(schedule.currentExpiresAt);
      if (expires <= rotateBy && !schedule.overlapUntil) {
        await this.keys.roll(schedule.id, new Date(now.getTime() + this.settings.overlapSeconds * 1000), 'expiry');
        this.logger.info({ repositoryId: schedule.id, expires: schedule.currentExpiresAt }, 'key rolled before it expires');
        continue;
      }
      if (expires <= now.getTime() + NEAR_EXPIRY_WINDOWS * this.settings.rotateBeforeSeconds * 1000) near++;
      next = Math.min(next, expires);
    }
    this.nearExpiry.set(near);
    if (Number.isFinite(next)) this.nextExpiry.set(next / 1000);
    else this.nextExpiry.reset();
  }
}
