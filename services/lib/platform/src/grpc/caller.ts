import { Metadata } from 'nice-grpc-common';
import type { Caller } from '@packyard/proto/packyard/common/v1/common';

export type { Caller };

/** The metadata key carrying the caller on every call between modules. */
export const CALLER_METADATA_KEY = 'x-packyard-caller';

export const SYSTEM_CALLER: Caller = { userId: '', kind: 'system', scopes: [], repositoryId: '', tokenId: '', address: '' };

export const encodeCaller = (caller: Caller): string => Buffer.from(JSON.stringify(caller)).toString('base64url');

export function decodeCaller(metadata: Metadata): Caller | undefined {
  const raw = metadata.get(CALLER_METADATA_KEY);
  if (typeof raw !== 'string' || raw === '') return undefined;
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Caller>;
    return { userId: value.userId ?? '', kind: value.kind ?? '', scopes: value.scopes ?? [], repositoryId: value.repositoryId ?? '', tokenId: value.tokenId ?? '', address: value.address ?? '' };
  } catch {
    return undefined;
  }
}
