import { describe, expect, it } from 'vitest';
import { PackageDeleted } from '@packyard/proto/packyard/artifact/v1/events';
import { RepositoryCreated, RepositoryDeleted } from '@packyard/proto/packyard/repository/v1/events';
import type { BusMessage } from '../bus/event-bus.port';
import { decodeEvent } from './decode-event';

const TABLE = { RepositoryCreated, RepositoryDeleted };

describe('decodeEvent', () => {
  it('reads the data by the message of its type, defaults for what an older event lacks', () => {
    const event = decodeEvent({ type: 'RepositoryDeleted', data: { repositoryId: 'r1', deletedAt: 't' } }, TABLE);
    expect(event).toEqual({ type: 'RepositoryDeleted', data: { repositoryId: 'r1', workspaceId: '', ownerId: '', deletedAt: 't', purgeAt: '', withWorkspace: false } });
    if (event?.type === 'RepositoryDeleted') expect(event.data.repositoryId).toBe('r1');
  });

  it('narrows a bus message by its type, each branch to its own message, with no cast', () => {
    const message: BusMessage = { id: 'e1', type: 'RepositoryCreated', key: 'r1', data: { repositoryId: 'r1', name: 'main', kind: 'DEB', codename: 'stable' } };
    const event = decodeEvent(message, TABLE);
    switch (event?.type) {
      case 'RepositoryCreated':
        expect([event.data.name, event.data.codename, event.data.workspaceId]).toEqual(['main', 'stable', '']);
        return;
      case 'RepositoryDeleted':
      case undefined:
        expect.unreachable(`decoded as ${event?.type}`);
    }
  });

  it('reads a value recorded as a string where the message has a number, and drops fields the message has not', () => {
    const event = decodeEvent({ type: 'PackageDeleted', data: { packageId: 'p1', sizeBytes: '1024', secret: 'x' } }, { PackageDeleted });
    expect(event?.data.sizeBytes).toBe(1024);
    expect(event?.data).not.toHaveProperty('secret');
  });

  it('leaves out types the table does not name, inherited names included', () => {
    expect(decodeEvent({ type: 'PackageUploaded', data: {} }, TABLE)).toBeUndefined();
    expect(decodeEvent({ type: 'toString', data: {} }, TABLE)).toBeUndefined();
  });
});
