import type { PrivateKey } from 'openpgp';
import { ConcurrencyError, handleCommand, loadAggregate, notFound, PackyardError, type EventStore } from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import { generateRepositoryKey, readPrivateKey, type RepositoryKeyIdentity } from '../domain';
import { signingKeyDecider } from './signing-key.decider';
import { signingKeyStream } from './signing-key.events';

export interface UnlockedKey {
  privateKey: PrivateKey;
  fingerprint: string;
  publicKeyArmored: string;
}

const defaultIdentity = (repositoryId: string): RepositoryKeyIdentity => ({
  name: `Packyard repository ${repositoryId}`,
  email: `repository-${repositoryId}@packyard.invalid`,
});

/**
 * The repositories' keys: generated once (on RepositoryCreated, or on the first Sign that
 * beats that reaction), stored sealed with the master key, and kept decrypted in memory
 * per repository afterwards, since unsealing and parsing an RSA-4096 key costs more than
 * the signature itself.
 */
export class KeyRing {
  private readonly unlocked = new Map<string, Promise<UnlockedKey>>();
  private readonly generating = new Map<string, Promise<void>>();

  constructor(
    private readonly events: EventStore,
    private readonly box: SecretBox,
  ) {}

  /** creates the repository's key unless it has one; concurrent callers share one generation */
  ensureKey(repositoryId: string, identity: RepositoryKeyIdentity = defaultIdentity(repositoryId)): Promise<void> {
    let running = this.generating.get(repositoryId);
    if (!running) {
      running = this.generate(repositoryId, identity).finally(() => this.generating.delete(repositoryId));
      this.generating.set(repositoryId, running);
    }
    return running;
  }

  private async generate(repositoryId: string, identity: RepositoryKeyIdentity): Promise<void> {
    const { state } = await loadAggregate(this.events, signingKeyStream(repositoryId), signingKeyDecider);
    if (state.status !== 'none') return;
    const key = await generateRepositoryKey(identity);
    try {
      await handleCommand(this.events, signingKeyStream(repositoryId), signingKeyDecider, {
        type: 'RegisterKey',
        repositoryId,
        fingerprint: key.fingerprint,
        publicKeyArmored: key.publicKeyArmored,
        // bound to the repository: a sealed key copied to another repository's stream will not open
        sealedPrivateKey: this.box.seal(key.privateKeyArmored, repositoryId),
        now: new Date().toISOString(),
      }, { retries: 0 });
    } catch (error) {
      // another process registered first: its key is the repository's key
      const lost = error instanceof ConcurrencyError || (error instanceof PackyardError && error.kind === 'CONFLICT');
      if (!lost) throw error;
    }
  }

  /** the decrypted key, generating it first when the repository has none yet */
  key(repositoryId: string): Promise<UnlockedKey> {
    let cached = this.unlocked.get(repositoryId);
    if (!cached) {
      cached = this.unlock(repositoryId);
      this.unlocked.set(repositoryId, cached);
      cached.catch(() => this.unlocked.delete(repositoryId));
    }
    return cached;
  }

  private async unlock(repositoryId: string): Promise<UnlockedKey> {
    let { state } = await loadAggregate(this.events, signingKeyStream(repositoryId), signingKeyDecider);
    if (state.status === 'none') {
      await this.ensureKey(repositoryId);
      ({ state } = await loadAggregate(this.events, signingKeyStream(repositoryId), signingKeyDecider));
    }
    if (state.status !== 'active') throw notFound('PACKYARD_SIGNING_KEY_NOT_FOUND', 'The repository has no signing key');
    const privateKey = await readPrivateKey(this.box.open(state.sealedPrivateKey, repositoryId).toString('utf8'));
    return { privateKey, fingerprint: state.fingerprint, publicKeyArmored: state.publicKeyArmored };
  }

  async destroy(repositoryId: string): Promise<void> {
    this.unlocked.delete(repositoryId);
    await handleCommand(this.events, signingKeyStream(repositoryId), signingKeyDecider, { type: 'DestroyKey', repositoryId, now: new Date().toISOString() });
    this.unlocked.delete(repositoryId);
  }
}
