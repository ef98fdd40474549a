import type { Projection } from '@packyard/platform';
import type { RetentionPolicySetData } from '../retention/retention.events';

export interface RetentionPolicyDocument {
  /** the repository id */
  id: string;
  keepVersions: number;
  keepDownloadedDays: number;
}

export const RETENTION_POLICIES = 'retention-policies';

/** Each repository's retention policy (none: keep everything). */
export const retentionPoliciesProjection: Projection = {
  name: 'retention-policies',
  collections: [RETENTION_POLICIES],
  async handle(event, readModels) {
    if (event.type !== 'RetentionPolicySet') return;
    const data = event.data as RetentionPolicySetData;
    await readModels.collection<RetentionPolicyDocument>(RETENTION_POLICIES).upsert({ id: data.repositoryId, keepVersions: data.keepVersions, keepDownloadedDays: data.keepDownloadedDays });
  },
};
