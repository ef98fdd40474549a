import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { unauthenticated, type ReadModelStore } from '@packyard/platform';

/**
 * Refresh tokens live in a small store of identity (a collection beside its read models,
 * so SQLite on a single node and MongoDB in a cluster), not in the event log: they churn
 * on every refresh, expire, and mean nothing to the domain; an event per rotation would
 * grow the user's stream without end. Only SHA-256 hashes are stored.
 *
 * Every sign-in starts a family; each refresh spends the presented token and issues the
 * next one of the family. A spent token presented again means it was copied: the whole
 * family is revoked (OAuth 2.0 Security BCP, refresh token rotation).
 */
interface RefreshTokenDoc {
  id: string;
  familyId: string;
  userId: string;
  expiresAt: number;
  spentAt: number | null;
}

interface RefreshFamilyDoc {
  id: string;
  userId: string;
  createdAt: number;
  revokedAt: number | null;
}

const TOKEN_PREFIX = 'pyd_rf_';
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class RefreshTokenStore {
  private readonly tokens;
  private readonly families;
  /** rotations of one family run one at a time, so two racing refreshes cannot both succeed */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(readModels: ReadModelStore) {
    this.tokens = readModels.collection<RefreshTokenDoc>('refresh_tokens');
    this.families = readModels.collection<RefreshFamilyDoc>('refresh_families');
  }

  private async issueIn(familyId: string, userId: string, now: number): Promise<string> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await this.tokens.upsert({ id: hashOf(token), familyId, userId, expiresAt: now + REFRESH_TOKEN_TTL_MS, spentAt: null });
    return token;
  }

  /** a new family, for a sign-in */
  async start(userId: string, now = Date.now()): Promise<string> {
    const familyId = randomUUID();
    await this.families.upsert({ id: familyId, userId, createdAt: now, revokedAt: null });
    return this.issueIn(familyId, userId, now);
  }

  private serially<T>(familyId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(familyId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.queues.set(familyId, settled);
    void settled.then(() => {
      if (this.queues.get(familyId) === settled) this.queues.delete(familyId);
    });
    return next;
  }

  /** spends `token` and returns its successor */
  async rotate(token: string, now = Date.now()): Promise<{ userId: string; refreshToken: string }> {
    const found = await this.tokens.get(hashOf(token));
    if (!found) throw unauthenticated('Invalid or expired refresh token');
    return this.serially(found.familyId, async () => {
      const current = await this.tokens.get(found.id);
      const family = await this.families.get(found.familyId);
      if (!current || !family || family.revokedAt !== null || current.expiresAt <= now) {
        throw unauthenticated('Invalid or expired refresh token');
      }
      if (current.spentAt !== null) {
        await this.revokeFamily(family, now);
        throw unauthenticated('Refresh token was already used; the session has been signed out');
      }
      await this.tokens.upsert({ ...current, spentAt: now });
      return { userId: current.userId, refreshToken: await this.issueIn(current.familyId, current.userId, now) };
    });
  }

  /** signs out the session `token` belongs to; unknown tokens are ignored */
  async revoke(token: string, now = Date.now()) {
    const found = await this.tokens.get(hashOf(token));
    const family = found && (await this.families.get(found.familyId));
    if (family) await this.serially(family.id, () => this.revokeFamily(family, now));
  }

  /** signs out every session of a user (after a password change) */
  async revokeAll(userId: string, now = Date.now()) {
    for (const family of await this.families.find({ userId, revokedAt: null })) {
      await this.serially(family.id, () => this.revokeFamily(family, now));
    }
  }

  private async revokeFamily(family: RefreshFamilyDoc, now: number) {
    await this.families.upsert({ ...family, revokedAt: now });
    // the family's tokens are useless from now on; the revoked family alone answers for them
    await this.tokens.deleteMany({ familyId: family.id });
  }
}
