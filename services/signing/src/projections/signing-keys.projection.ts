import type { Projection } from '@packyard/platform';
import type { SigningKeyEvent } from '../keys/signing-key.events';

/** a repository's key schedule: what the maintenance loop and the expiry metric read */
export interface KeyScheduleDocument {
  /** the repository id */
  id: string;
  currentFingerprint: string;
  /** '' for a key without expiry */
  currentExpiresAt: string;
  /** '' unless a previous key still signs */
  overlapUntil: string;
}

export const KEY_SCHEDULES = 'signing_key_schedules';

/** One document per repository with a key: when its current key expires and when an overlap ends. */
export const signingKeysProjection: Projection = {
  name: 'signing-keys',
  collections: [KEY_SCHEDULES],
  async handle(recorded, readModels) {
    const schedules = readModels.collection<KeyScheduleDocument>(KEY_SCHEDULES);
    const event = { type: recorded.type, data: recorded.data } as SigningKeyEvent;
    switch (event.type) {
      case 'SigningKeyCreated':
        await schedules.upsert({ id: event.data.repositoryId, currentFingerprint: event.data.fingerprint, currentExpiresAt: event.data.expiresAt ?? '', overlapUntil: '' });
        return;
      case 'SigningKeyRolled':
        await schedules.upsert({ id: event.data.repositoryId, currentFingerprint: event.data.fingerprint, currentExpiresAt: event.data.expiresAt, overlapUntil: event.data.overlapUntil });
        return;
      case 'SigningKeyRetired': {
        const schedule = await schedules.get(event.data.repositoryId);
        if (schedule) await schedules.upsert({ ...schedule, overlapUntil: '' });
        return;
      }
      case 'SigningKeyDestroyed':
        await schedules.delete(event.data.repositoryId);
        return;
      case 'SigningKeysChanged':
      case 'PublicKeysChanged':
        return;
      default:
        // events of other streams of the module (none today) are not this projection's
        return;
    }
  },
};
