import { handleCommand, invalid, notFound, type CallerContext, type EventSourcing } from '@packyard/platform';
import { Advisory } from '@packyard/formats/recorded-distributions';
import type { AdvisoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/advisories';
import type { ServiceImplementation } from 'nice-grpc';
import { advisoriesDecider } from '../advisories/advisories.decider';
import { ADVISORIES, advisoryDocumentId, type AdvisoryDocument } from '../advisories/advisories.projection';
import { advisoriesStream } from '../advisories/advisory.events';
import { REPOSITORIES, type RepositoryDocument } from '../projections/repositories.projection';
import { visibleRepository } from './visible-repository';

/** Advisories of a repository the caller may see; the gateway asks for the publish scope to create or delete one. */
export function advisoryHandlers(es: EventSourcing): ServiceImplementation<typeof AdvisoryServiceDefinition, CallerContext> {
  const repositories = es.readModels.collection<RepositoryDocument>(REPOSITORIES);
  const advisories = es.readModels.collection<AdvisoryDocument>(ADVISORIES);

  const visibleAdvisory = async (repositoryId: string, advisoryId: string): Promise<Advisory> => {
    const doc = advisoryId ? await advisories.get(advisoryDocumentId(repositoryId, advisoryId)) : undefined;
    if (!doc) throw notFound('PACKYARD_ADVISORY_NOT_FOUND', 'Advisory not found');
    return Advisory.fromJSON(doc.advisory);
  };

  return {
    async createAdvisory(request, { caller }) {
      const repository = await visibleRepository(repositories, caller, request.repositoryId, request.workspaceId);
      if (repository.kind !== 'RPM') throw invalid('PACKYARD_ADVISORY_RPM_ONLY', 'Advisories are published in RPM repositories only (as updateinfo.xml)');
      const { workspaceId: _workspaceId, repositoryId: _repositoryId, ...advisory } = request;
      const result = await handleCommand(
        es.events,
        advisoriesStream(repository.id),
        advisoriesDecider,
        { type: 'CreateAdvisory', repositoryId: repository.id, advisory, now: new Date().toISOString() },
        { metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      const [created] = result.newEvents;
      return visibleAdvisory(repository.id, created.type === 'AdvisoryCreated' ? created.data.advisory!.id : '');
    },

    async listAdvisories(request, { caller }) {
      const repository = await visibleRepository(repositories, caller, request.repositoryId, request.workspaceId);
      const docs = await advisories.find({ repositoryId: repository.id }, { sort: { field: 'issuedAt', direction: -1 } });
      return { advisories: docs.map((doc) => Advisory.fromJSON(doc.advisory)) };
    },

    async getAdvisory(request, { caller }) {
      const repository = await visibleRepository(repositories, caller, request.repositoryId, request.workspaceId);
      return visibleAdvisory(repository.id, request.id);
    },

    async deleteAdvisory(request, { caller }) {
      const repository = await visibleRepository(repositories, caller, request.repositoryId, request.workspaceId);
      const result = await handleCommand(
        es.events,
        advisoriesStream(repository.id),
        advisoriesDecider,
        { type: 'DeleteAdvisory', repositoryId: repository.id, advisoryId: request.id, now: new Date().toISOString() },
        { metadata: { caller } },
      );
      await es.caughtUp(result.lastPosition);
      return {};
    },
  };
}
