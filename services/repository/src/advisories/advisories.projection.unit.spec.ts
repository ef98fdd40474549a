import { describe, expect, it } from 'vitest';
import { projectionSpec } from '@packyard/testing/given-when-then';
import { ADVISORIES, advisoriesProjection, type AdvisoryDocument } from './advisories.projection';

const advisory = (id: string, repositoryId = 'r-1') => ({
  id, repositoryId, type: 'bugfix', severity: '', title: id, description: '', issuedAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  references: [], packages: [{ name: 'hello', epoch: 0, version: '1', release: '1', arch: 'noarch', uploadDistribution: { distro: 'el', version: '9' } }], createdAt: '2026-01-01T00:00:00.000Z',
});
const created = (id: string, repositoryId = 'r-1') => ({ type: 'AdvisoryCreated', stream: `advisories-${repositoryId}`, data: { advisory: advisory(id, repositoryId) } });

describe('advisories projection', () => {
  it('keeps advisory ids apart per repository, forgets deleted ones and those of a repository deleted before restoration existed', () =>
    projectionSpec(advisoriesProjection)
      .given([created('A-1'), created('A-1', 'r-2'), created('A-2', 'r-2')])
      .when([
        { type: 'AdvisoryDeleted', stream: 'advisories-r-2', data: { repositoryId: 'r-2', advisoryId: 'A-1', deletedAt: '2026-01-02T00:00:00Z' } },
        { type: 'RepositoryDeleted', stream: 'repositories-ws-1', data: { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1', deletedAt: '2026-01-03T00:00:00Z' } },
      ])
      .then(async (readModels) => {
        const docs = await readModels.collection<AdvisoryDocument>(ADVISORIES).find({});
        expect(docs.map((doc) => doc.id)).toEqual(['r-2/A-2']);
        expect(docs[0].advisory).toEqual(advisory('A-2', 'r-2'));
      }));

  it('keeps an advisory recorded before the Distribution message with its packages\' distribution as the message', () => {
    const { packages, ...rest } = advisory('A-0');
    const recordedBefore = { ...rest, packages: packages.map(({ uploadDistribution: _, ...pkg }) => ({ ...pkg, distribution: 'el/any-version' })) };
    return projectionSpec(advisoriesProjection)
      .given([])
      .when([{ type: 'AdvisoryCreated', stream: 'advisories-r-1', data: { advisory: recordedBefore } }])
      .then(async (readModels) => {
        const [doc] = await readModels.collection<AdvisoryDocument>(ADVISORIES).find({});
        expect(doc.advisory.packages).toEqual([{ name: 'hello', epoch: 0, version: '1', release: '1', arch: 'noarch', uploadDistribution: { distro: 'el', version: 'any-version' } }]);
      });
  });

  it('keeps the advisories of a deleted repository through its grace period (a restoration publishes them again) and forgets them at its purge', async () => {
    const ids = { repositoryId: 'r-1', workspaceId: 'ws-1', ownerId: 'u-1' };
    const deleted = { type: 'RepositoryDeleted', stream: 'repositories-ws-1', data: { ...ids, deletedAt: '2026-01-03T00:00:00Z', purgeAt: '2026-01-10T00:00:00Z', withWorkspace: false } };
    await projectionSpec(advisoriesProjection)
      .given([created('A-1')])
      .when([deleted])
      .then(async (readModels) => expect((await readModels.collection<AdvisoryDocument>(ADVISORIES).find({})).map((doc) => doc.id)).toEqual(['r-1/A-1']));
    await projectionSpec(advisoriesProjection)
      .given([created('A-1'), deleted])
      .when([{ type: 'RepositoryPurged', stream: 'repositories-ws-1', data: { ...ids, purgedAt: '2026-01-10T00:00:00Z' } }])
      .then(async (readModels) => expect(await readModels.collection<AdvisoryDocument>(ADVISORIES).find({})).toEqual([]));
  });
});
