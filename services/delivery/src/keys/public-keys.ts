import { createHash } from 'node:crypto';
import { servedFile, type ServedFile } from '../catalog/served-file';

export interface RepositoryPublicKey {
  armored: string;
  binary: Uint8Array;
}

export interface PublicKeyFiles {
  /** `{repositoryUrl}/gpg.key`: armored, for `gpg --dearmor`, `rpm --import` and gpgkey= */
  armored: ServedFile;
  /** `{repositoryUrl}/keyring.gpg`: a binary keyring, what apt's signed-by= reads as is */
  keyring: ServedFile;
}

import { ARMORED_KEY_FILE, KEYRING_FILE } from '@packyard/formats';

export { ARMORED_KEY_FILE, KEYRING_FILE };

const memoryFile = (repositoryId: string, path: string, body: Buffer, contentType: string, nowMs: number): ServedFile => {
  const sha256 = createHash('sha256').update(body).digest('hex');
  const file = servedFile(repositoryId, { path, blobKey: '', size: body.length, sha256, contentType, package: false }, Math.floor(nowMs / 1000) * 1000);
  file.body = body;
  return file;
};

/**
 * A repository's public key as the two files the edge serves without a token. Keys are
 * fetched from the signing module on first request and kept (a repository's key does not
 * change); a failed fetch is not kept, so the next request asks again.
 */
export class PublicKeys {
  private readonly files = new Map<string, Promise<PublicKeyFiles>>();

  constructor(private readonly fetchKey: (repositoryId: string) => Promise<RepositoryPublicKey>) {}

  get(repositoryId: string): Promise<PublicKeyFiles> {
    let files = this.files.get(repositoryId);
    if (!files) {
      files = this.fetchKey(repositoryId).then((key) => {
        const now = Date.now();
        return {
          armored: memoryFile(repositoryId, ARMORED_KEY_FILE, Buffer.from(key.armored, 'utf8'), 'application/pgp-keys', now),
          keyring: memoryFile(repositoryId, KEYRING_FILE, Buffer.from(key.binary), 'application/pgp-keys', now),
        };
      });
      files.catch(() => this.files.delete(repositoryId));
      this.files.set(repositoryId, files);
    }
    return files;
  }

  forget(repositoryId: string): void {
    this.files.delete(repositoryId);
  }
}
