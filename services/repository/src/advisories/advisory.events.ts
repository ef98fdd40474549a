import type { DomainEvent } from '@packyard/platform';
import type { AdvisoryCreated as AdvisoryCreatedData, AdvisoryDeleted as AdvisoryDeletedData } from '@packyard/proto/packyard/repository/v1/advisories';

export type AdvisoryCreated = DomainEvent<'AdvisoryCreated', AdvisoryCreatedData>;
export type AdvisoryDeleted = DomainEvent<'AdvisoryDeleted', AdvisoryDeletedData>;
export type AdvisoriesEvent = AdvisoryCreated | AdvisoryDeleted;

/**
 * One stream per repository holds its advisories: ids are unique within it and the
 * PKY-<year>-<number> sequence never hands out a number twice.
 */
export const advisoriesStream = (repositoryId: string) => `advisories-${repositoryId}`;
