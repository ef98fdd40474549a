import { describe, expect, it } from 'vitest';
import { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import { decodeEvent } from './decode-event';

const TABLE = { RepositoryCreated, RepositoryDeleted };

describe('decodeEvent', () => {
  it('reads the data by the message of its type, defaults for what an older event lacks', () => {
    const event = decodeEvent({ type: 'RepositoryDeleted', data: { repositoryId: 'r1', deletedAt: 't' } }, TABLE);
    expect(event).toEqual({ type: 'RepositoryDeleted', data: { repositoryId: 'r1', workspaceId: '', ownerId: '', deletedAt: 't', purgeAt: '', withWorkspace: false } });
    if (event?.type === 'RepositoryDeleted') expect(event.data.repositoryId).toBe('r1');
  });

  it('leaves out types the table does not name, inherited names included', () => {
    expect(decodeEvent({ type: 'PackageUploaded', data: {} }, TABLE)).toBeUndefined();
    expect(decodeEvent({ type: 'toString', data: {} }, TABLE)).toBeUndefined();
  });
});
