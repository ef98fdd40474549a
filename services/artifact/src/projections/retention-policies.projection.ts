import { decodeEvent, type Projection } from '@packyard/platform';
import { RetentionPolicySet } from '@packyard/proto/packyard/artifact/v1/events';

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
    const decoded = decodeEvent(event, { RetentionPolicySet });
    if (!decoded) return;
    const { data } = decoded;
    await readModels.collection<RetentionPolicyDocument>(RETENTION_POLICIES).upsert({ id: data.repositoryId, keepVersions: data.keepVersions, keepDownloadedDays: data.keepDownloadedDays });
  },
};
