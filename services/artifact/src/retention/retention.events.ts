import type { DomainEvent } from '@packyard/platform';
import type { RetentionPolicySet as RetentionPolicySetData } from '@packyard/proto/packyard/artifact/v1/events';

export type RetentionPolicySet = DomainEvent<'RetentionPolicySet', RetentionPolicySetData>;
export type RetentionEvent = RetentionPolicySet;

/** one short stream per repository: the policy changes rarely and is read from a projection */
export const retentionStream = (repositoryId: string) => `retention-${repositoryId}`;
