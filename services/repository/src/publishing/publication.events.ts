import type { Distribution } from '@packyard/formats';
import type { DomainEvent } from '@packyard/platform';
import type { IndexBuilt as IndexBuiltData, IndexPublished as IndexPublishedData, IndexSigned as IndexSignedData } from '@packyard/proto/packyard/repository/v1/events';

export type IndexBuilt = DomainEvent<'IndexBuilt', IndexBuiltData>;
export type IndexSigned = DomainEvent<'IndexSigned', IndexSignedData>;
export type IndexPublished = DomainEvent<'IndexPublished', IndexPublishedData>;
export type PublicationEvent = IndexBuilt | IndexSigned | IndexPublished;

/** all three go to `packyard.repository.events.v1`; delivery serves from IndexPublished alone */
export const isPublicationIntegrationEvent = (_event: PublicationEvent) => true;

/** one publication (Pulp's distribution: a path pointing at a generation) per repository and distribution */
export const publicationStream = (repositoryId: string, target: Distribution) => `${publicationStreamPrefix(repositoryId)}${target.distro}_${target.version}`;

/** what every publication stream of the repository begins with */
export const publicationStreamPrefix = (repositoryId: string) => `publication-${repositoryId}_`;
