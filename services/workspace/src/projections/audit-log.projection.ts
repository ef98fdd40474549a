import { decodeEvent, isInboxEvent, type Caller, type Projection, type ReadModels, type RecordedEvent } from '@packyard/platform';
import type { AuditEntry } from '@packyard/proto/packyard/workspace/v1/workspace';
import { formatDistribution, type Distribution } from '@packyard/formats';
import { PackageCopied, PackageDeleted, PackageUploaded } from '@packyard/formats/recorded-distributions';
import { UserRegistered } from '@packyard/proto/packyard/identity/v1/events';
import { RepositoryCreated, RepositoryDeleted, RepositoryPurged, RepositoryRestored } from '@packyard/proto/packyard/repository/v1/events';
import { AccessTokenCreated, AccessTokenRevoked, RepoTokenCreated, RepoTokenRevoked } from '@packyard/proto/packyard/token/v1/events';
import { WorkspaceCreated, WorkspaceDeleted, WorkspacePurged } from '@packyard/proto/packyard/workspace/v1/events';
import { wasPurgedAtOnce } from '../workspaces/workspace.events';

export interface AuditEntryDocument extends AuditEntry {
  workspaceId: string;
  /** the package an entry is about ('' otherwise): a copy replaces its upload entry, a deletion reuses its words */
  packageId: string;
}

type EntryFields = Pick<AuditEntry, 'action' | 'target' | 'repositoryId' | 'reason'> & { packageId?: string };

/** names the log shows instead of ids, kept by this projection so it never waits for another */
interface NamedDocument {
  id: string;
  name: string;
  workspaceId?: string;
  ownerId?: string;
}

export const AUDIT_ENTRIES = 'audit-entries';
const AUDIT_NAMES = 'audit-names';

const OWN = { WorkspaceCreated, WorkspaceDeleted, WorkspacePurged };
const FROM_OUTSIDE = {
  UserRegistered,
  RepositoryCreated,
  RepositoryDeleted,
  RepositoryRestored,
  RepositoryPurged,
  PackageUploaded,
  PackageCopied,
  // a promotion is a copy that moves: the same message
  PackagePromoted: PackageCopied,
  PackageDeleted,
  RepoTokenCreated,
  RepoTokenRevoked,
  AccessTokenCreated,
  AccessTokenRevoked,
};

const nameKey = (kind: 'user' | 'token' | 'repository' | 'workspace', id: string) => `${kind}:${id}`;

/**
 * The audit log of each workspace, from the events the workspace module records: its own
 * (WorkspaceCreated) and those of artifact, repository, token and identity through its inbox.
 * Who acted comes from the caller in the event's metadata (user, account token, or the system),
 * with the client address the gateway put there. An account token belongs to no workspace:
 * its creation and revocation appear in every workspace of its owner.
 */
export const auditLogProjection: Projection = {
  name: 'audit-log',
  collections: [AUDIT_ENTRIES, AUDIT_NAMES],
  async handle(recorded, readModels) {
    const names = readModels.collection<NamedDocument>(AUDIT_NAMES);
    if (!isInboxEvent(recorded.stream)) {
      const own = decodeEvent(recorded, OWN);
      if (own?.type === 'WorkspaceCreated') {
        const { data } = own;
        await names.upsert({ id: nameKey('workspace', data.workspaceId), name: data.name, ownerId: data.ownerId });
      } else if ((own?.type === 'WorkspaceDeleted' && wasPurgedAtOnce(own.data)) || own?.type === 'WorkspacePurged') {
        // gone for good; a deleted workspace can be restored with its log until it is purged
        await names.delete(nameKey('workspace', own.data.workspaceId));
      }
      return;
    }
    const event = decodeEvent(recorded, FROM_OUTSIDE);
    if (!event) return;
    const entries = readModels.collection<AuditEntryDocument>(AUDIT_ENTRIES);
    const record = (workspaceId: string, entry: EntryFields) => recordEntry(readModels, recorded, workspaceId, entry);
    const repositoryName = async (id: string) => (await names.get(nameKey('repository', id)))?.name ?? id;
    const packageTarget = async (p: { name: string; version: string; architecture: string; uploadDistribution: Distribution; repositoryId: string }) =>
      `${p.name} ${p.version} (${p.architecture}, ${formatDistribution(p.uploadDistribution)}) in ${await repositoryName(p.repositoryId)}`;

    switch (event.type) {
      case 'UserRegistered': {
        const { data } = event;
        await names.upsert({ id: nameKey('user', data.userId), name: data.email });
        return;
      }
      case 'RepositoryCreated': {
        const { data } = event;
        await names.upsert({ id: nameKey('repository', data.repositoryId), name: data.name, workspaceId: data.workspaceId });
        await record(data.workspaceId, { action: 'repository.created', target: data.name, repositoryId: data.repositoryId, reason: '' });
        return;
      }
      case 'RepositoryDeleted':
      case 'RepositoryRestored':
      case 'RepositoryPurged': {
        const { data } = event;
        const action = { RepositoryDeleted: 'repository.deleted', RepositoryRestored: 'repository.restored', RepositoryPurged: 'repository.purged' }[event.type];
        await record(data.workspaceId, { action, target: await repositoryName(data.repositoryId), repositoryId: data.repositoryId, reason: '' });
        return;
      }
      case 'PackageUploaded': {
        const { data } = event;
        await record(data.workspaceId, { action: 'package.uploaded', target: await packageTarget(data), repositoryId: data.repositoryId, reason: '', packageId: data.packageId });
        return;
      }
      case 'PackageCopied':
      case 'PackagePromoted': {
        const { data } = event;
        const from = await repositoryName(data.sourceRepositoryId);
        // a copy's PackageUploaded came first (same stream, same order); this entry says more
        await entries.deleteMany({ packageId: data.packageId });
        await record(data.workspaceId, {
          action: event.type === 'PackageCopied' ? 'package.copied' : 'package.promoted',
          target: `${await packageTarget(data)} from ${from}`,
          repositoryId: data.repositoryId,
          reason: '',
          packageId: data.packageId,
        });
        return;
      }
      case 'PackageDeleted': {
        const { data } = event;
        // a promotion's source deletion is part of the promotion entry
        if (data.reason === 'promoted') return;
        const [entered] = await entries.find({ packageId: data.packageId }, { limit: 1 });
        const target = entered ? entered.target.replace(/ from .*$/, '') : `package ${data.packageId} in ${await repositoryName(data.repositoryId)}`;
        await record(data.workspaceId, { action: 'package.deleted', target, repositoryId: data.repositoryId, reason: data.reason, packageId: data.packageId });
        return;
      }
      case 'RepoTokenCreated':
      case 'RepoTokenRevoked': {
        const { data } = event;
        const repository = await names.get(nameKey('repository', data.repositoryId));
        if (event.type === 'RepoTokenCreated') await names.upsert({ id: nameKey('token', data.tokenId), name: event.data.name });
        if (!repository?.workspaceId) return;
        const token = (await names.get(nameKey('token', data.tokenId)))?.name ?? data.tokenId;
        await record(repository.workspaceId, {
          action: event.type === 'RepoTokenCreated' ? 'token.created' : 'token.revoked',
          target: `repository token ${token} of ${repository.name}`,
          repositoryId: data.repositoryId,
          reason: '',
        });
        return;
      }
      case 'AccessTokenCreated':
      case 'AccessTokenRevoked': {
        const { data } = event;
        if (event.type === 'AccessTokenCreated') await names.upsert({ id: nameKey('token', data.tokenId), name: event.data.name });
        const token = (await names.get(nameKey('token', data.tokenId)))?.name ?? data.tokenId;
        for (const workspace of (await names.find({ ownerId: data.ownerId })).filter((doc) => doc.id.startsWith('workspace:'))) {
          await record(workspace.id.slice('workspace:'.length), {
            action: event.type === 'AccessTokenCreated' ? 'token.created' : 'token.revoked',
            target: `account token ${token}`,
            repositoryId: '',
            reason: '',
          });
        }
        return;
      }
    }
  },
};

async function recordEntry(readModels: ReadModels, event: RecordedEvent, workspaceId: string, { packageId = '', ...entry }: EntryFields) {
  const names = readModels.collection<NamedDocument>(AUDIT_NAMES);
  const caller = (event.metadata?.caller ?? {}) as Partial<Caller>;
  const actorKind = caller.kind === 'id_token' ? 'user' : caller.kind === 'access_token' ? 'token' : 'system';
  const userName = caller.userId ? ((await names.get(nameKey('user', caller.userId)))?.name ?? caller.userId) : '';
  const tokenName = caller.tokenId ? ((await names.get(nameKey('token', caller.tokenId)))?.name ?? caller.tokenId) : '';
  const actor = actorKind === 'user' ? userName : actorKind === 'token' ? `token ${tokenName} (${userName})` : entry.reason === 'retention' ? 'retention policy' : 'Packyard';
  const recordedAt = typeof event.metadata?.recordedAt === 'string' ? event.metadata.recordedAt : event.recordedAt;
  await readModels.collection<AuditEntryDocument>(AUDIT_ENTRIES).upsert({
    id: `${event.id}:${workspaceId}`,
    workspaceId,
    at: recordedAt,
    actorKind,
    actor,
    userId: caller.userId ?? '',
    tokenId: caller.tokenId ?? '',
    address: caller.address ?? '',
    packageId,
    ...entry,
  });
}
