import { decodeEvent, isInboxEvent, type ReadModelStore, type RecordedEvent } from '@packyard/platform';
import { formatDistribution } from '@packyard/formats';
import { PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import { AccessTokenRevoked, RepoTokenRevoked } from '@packyard/proto/packyard/token/v1/events';
import { WORKSPACES, type WorkspaceDocument } from '../projections/workspaces.projection';
import { subjectKey, WEBHOOK_SUBJECTS, type WebhookSubjectDocument } from '../projections/webhooks.projection';
import type { WebhookEventType } from './webhook.events';

const ANNOUNCED = { PackageUploaded, PackageDeleted, RepositoryCreated, RepositoryDeleted, RepoTokenRevoked, AccessTokenRevoked };

/** one webhook event of one workspace, as the bodies carry it */
export interface Announcement {
  workspaceId: string;
  type: WebhookEventType;
  /** when it happened */
  occurredAt: string;
  data: Record<string, unknown>;
  /** package.published: sent once the edge serves this package */
  awaits?: { repositoryId: string; packageId: string };
}

/**
 * What another module's event (recorded in this module's inbox) means to webhooks: which
 * workspaces hear of it, as which event, with what object. An account token belongs to no
 * workspace: its revocation is told to every workspace of its owner (as the audit log does).
 */
export async function announcementsOf(recorded: RecordedEvent, readModels: ReadModelStore): Promise<Announcement[]> {
  const event = isInboxEvent(recorded.stream) ? decodeEvent(recorded, ANNOUNCED) : undefined;
  if (!event) return [];
  const subjects = readModels.collection<WebhookSubjectDocument>(WEBHOOK_SUBJECTS);
  const repository = async (id: string) => {
    const doc = await subjects.get(subjectKey('repository', id));
    return { id, name: doc?.name ?? '', kind: doc?.kind ?? '' };
  };
  switch (event.type) {
    case 'PackageUploaded': {
      const { data } = event;
      return [
        {
          workspaceId: data.workspaceId,
          type: 'package.published',
          occurredAt: data.uploadedAt,
          data: {
            package: {
              id: data.packageId,
              name: data.name,
              version: data.version,
              architecture: data.architecture,
              // webhook bodies speak the API's `distro/version`
              distribution: formatDistribution(data.uploadDistribution),
              filename: data.filename,
              sizeBytes: data.sizeBytes,
              sha256: data.sha256,
            },
            repository: await repository(data.repositoryId),
          },
          awaits: { repositoryId: data.repositoryId, packageId: data.packageId },
        },
      ];
    }
    case 'PackageDeleted': {
      const { data } = event;
      const known = await subjects.get(subjectKey('package', data.packageId));
      return [
        {
          workspaceId: data.workspaceId,
          type: 'package.deleted',
          occurredAt: data.deletedAt,
          data: {
            package: { id: data.packageId, name: known?.name ?? '', version: known?.version ?? '', architecture: known?.architecture ?? '', distribution: formatDistribution(data.uploadDistribution), filename: known?.filename ?? '' },
            repository: await repository(data.repositoryId),
            // deleted (by a user) | retention | promoted | repository-deleted
            reason: data.reason,
          },
        },
      ];
    }
    case 'RepositoryCreated': {
      const { data } = event;
      return [
        {
          workspaceId: data.workspaceId,
          type: 'repository.created',
          occurredAt: data.createdAt,
          data: { repository: { id: data.repositoryId, name: data.name, kind: data.kind, codename: data.codename, component: data.component } },
        },
      ];
    }
    case 'RepositoryDeleted': {
      const { data } = event;
      return [{ workspaceId: data.workspaceId, type: 'repository.deleted', occurredAt: data.deletedAt, data: { repository: await repository(data.repositoryId) } }];
    }
    case 'RepoTokenRevoked': {
      const { data } = event;
      const repositoryDoc = await subjects.get(subjectKey('repository', data.repositoryId));
      if (!repositoryDoc?.workspaceId) return [];
      const name = (await subjects.get(subjectKey('token', data.tokenId)))?.name ?? '';
      return [
        {
          workspaceId: repositoryDoc.workspaceId,
          type: 'token.revoked',
          occurredAt: data.revokedAt,
          data: { token: { id: data.tokenId, kind: 'repository', name }, repository: await repository(data.repositoryId) },
        },
      ];
    }
    case 'AccessTokenRevoked': {
      const { data } = event;
      const name = (await subjects.get(subjectKey('token', data.tokenId)))?.name ?? '';
      const workspaces = await readModels.collection<WorkspaceDocument>(WORKSPACES).find({ ownerId: data.ownerId });
      return workspaces.map((workspace) => ({
        workspaceId: workspace.id,
        type: 'token.revoked' as const,
        occurredAt: data.revokedAt,
        data: { token: { id: data.tokenId, kind: 'account', name } },
      }));
    }
    default:
      return [];
  }
}
