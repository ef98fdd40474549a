import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { notFound, unauthenticated, type ReadModelStore } from '@packyard/platform';

/**
 * Refresh tokens live in a small store of identity (a collection beside its read models,
 * so SQLite on a single node and MongoDB in a cluster), not in the event log: they churn
 * on every refresh, expire, and mean nothing to the domain; an event per rotation would
 * grow the user's stream without end. Only SHA-256 hashes are stored.
 *
 * Every sign-in starts a family; each refresh spends the presented token and issues the
 * next one of the family. A spent token presented again means it was copied: the whole
 * family is revoked (OAuth 2.0 Security BCP, refresh token rotation).
 *
 * A family is what the user sees as a signed-in session ("View Sessions"): the device
 * (user agent) and address it was last used from, when it started and was last used.
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
  /** absent in families started before sessions were listed */
  lastUsedAt?: number;
  userAgent?: string;
  clientIp?: string;
}

/** where a sign-in or refresh comes from */
export interface Device {
  userAgent: string;
  clientIp: string;
}

export interface SignInSession {
  id: string;
  userAgent: string;
  clientIp: string;
  createdAt: number;
  lastUsedAt: number;
}

const NO_DEVICE: Device = { userAgent: '', clientIp: '' };
/** a user agent is shown, not parsed: a bounded copy is enough */
const USER_AGENT_MAX = 512;
const describeDevice = (device: Device) => ({ userAgent: device.userAgent.slice(0, USER_AGENT_MAX), clientIp: device.clientIp });

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
  async start(userId: string, device: Device = NO_DEVICE, now = Date.now()): Promise<{ refreshToken: string; sessionId: string }> {
    const familyId = randomUUID();
    await this.families.upsert({ id: familyId, userId, createdAt: now, revokedAt: null, lastUsedAt: now, ...describeDevice(device) });
    return { refreshToken: await this.issueIn(familyId, userId, now), sessionId: familyId };
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
  async rotate(token: string, device: Device = NO_DEVICE, now = Date.now()): Promise<{ userId: string; refreshToken: string; sessionId: string }> {
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
      // an empty device (a caller that did not say) keeps what the family knew
      const seen = Object.fromEntries(Object.entries(describeDevice(device)).filter(([, value]) => value !== ''));
      await this.families.upsert({ ...family, lastUsedAt: now, ...seen });
      return { userId: current.userId, refreshToken: await this.issueIn(current.familyId, current.userId, now), sessionId: family.id };
    });
  }

  /** signs out the session `token` belongs to; unknown tokens are ignored */
  async revoke(token: string, now = Date.now()) {
    const found = await this.tokens.get(hashOf(token));
    const family = found && (await this.families.get(found.familyId));
    if (family) await this.serially(family.id, () => this.revokeFamily(family, now));
  }

  /** what a session of `userId` was last used from (to carry it over to the session that replaces it) */
  async deviceOf(userId: string, sessionId: string | undefined): Promise<Device> {
    const family = sessionId ? await this.families.get(sessionId) : undefined;
    return family?.userId === userId ? { userAgent: family.userAgent ?? '', clientIp: family.clientIp ?? '' } : NO_DEVICE;
  }

  /** the user's sessions that can still refresh, most recently used first */
  async list(userId: string, now = Date.now()): Promise<SignInSession[]> {
    return (await this.families.find({ userId, revokedAt: null }))
      .map((family) => ({
        id: family.id,
        userAgent: family.userAgent ?? '',
        clientIp: family.clientIp ?? '',
        createdAt: family.createdAt,
        lastUsedAt: family.lastUsedAt ?? family.createdAt,
      }))
      .filter((session) => session.lastUsedAt + REFRESH_TOKEN_TTL_MS > now)
      .sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  }

  /** signs out one session of the user; another user's session is not found, as an unknown one */
  async revokeSession(userId: string, sessionId: string, now = Date.now()) {
    const family = await this.families.get(sessionId);
    if (!family || family.userId !== userId || family.revokedAt !== null) throw notFound('PACKYARD_IDENTITY_SESSION_NOT_FOUND', 'Session not found');
    await this.serially(family.id, () => this.revokeFamily(family, now));
  }

  /** signs out every session of a user (after a password change), or every one but `keep` */
  async revokeAll(userId: string, keep?: string, now = Date.now()) {
    for (const family of await this.families.find({ userId, revokedAt: null })) {
      if (family.id !== keep) await this.serially(family.id, () => this.revokeFamily(family, now));
    }
  }

  private async revokeFamily(family: RefreshFamilyDoc, now: number) {
    await this.families.upsert({ ...family, revokedAt: now });
    // the family's tokens are useless from now on; the revoked family alone answers for them
    await this.tokens.deleteMany({ familyId: family.id });
  }
}
