import { createHash } from 'node:crypto';
import { ServedFile } from '../catalog/served-file';

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

import { ARMORED_KEY_FILE, KEYRING_FILE, publicKeyFiles } from '@packyard/formats/repository-keys';

export { ARMORED_KEY_FILE, KEYRING_FILE };

const memoryFile = (repositoryId: string, path: string, body: Buffer, contentType: string, nowMs: number): ServedFile => {
  const sha256 = createHash('sha256').update(body).digest('hex');
  const file = new ServedFile(repositoryId, { path, blobKey: '', size: body.length, sha256, contentType, package: false }, Math.floor(nowMs / 1000) * 1000);
  file.body = body;
  return file;
};

/** repositories whose key files are kept in memory, least recently asked for out first */
const CACHED_REPOSITORIES = 10_000;

/**
 * A repository's public keys as the two files the edge serves without a token, when its
 * published generations do not hold them (before its first publication). They come from
 * delivery's read model (signing's PublicKeysChanged), so they answer while the signing
 * module is down; a repository created before signing announced keys has no record there,
 * and only then is the signing module asked. The files are kept until the keys change
 * (`forget`); a failed read is not kept, so the next request asks again.
 */
export class PublicKeys {
  private readonly files = new Map<string, Promise<PublicKeyFiles>>();

  constructor(
    /** the keys the read model holds (every key, armored, newest first), undefined without a record */
    private readonly announcedKeys: (repositoryId: string) => Promise<string[] | undefined>,
    private readonly askSigning: (repositoryId: string) => Promise<RepositoryPublicKey>,
  ) {}

  get(repositoryId: string): Promise<PublicKeyFiles> {
    let files = this.files.get(repositoryId);
    if (files) {
      this.files.delete(repositoryId);
      this.files.set(repositoryId, files);
      return files;
    }
    files = this.read(repositoryId).then((key) => {
      const now = Date.now();
      return {
        armored: memoryFile(repositoryId, ARMORED_KEY_FILE, Buffer.from(key.armored, 'utf8'), 'application/pgp-keys', now),
        keyring: memoryFile(repositoryId, KEYRING_FILE, Buffer.from(key.binary), 'application/pgp-keys', now),
      };
    });
    files.catch(() => {
      if (this.files.get(repositoryId) === files) this.files.delete(repositoryId);
    });
    this.files.set(repositoryId, files);
    if (this.files.size > CACHED_REPOSITORIES) this.files.delete(this.files.keys().next().value!);
    return files;
  }

  private async read(repositoryId: string): Promise<RepositoryPublicKey> {
    const announced = await this.announcedKeys(repositoryId);
    return announced?.length ? publicKeyFiles(announced) : this.askSigning(repositoryId);
  }

  forget(repositoryId: string): void {
    this.files.delete(repositoryId);
  }
}
