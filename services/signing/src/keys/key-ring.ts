import { readKey } from 'openpgp';
import { ConcurrencyError, conflict, handleCommand, loadAggregate, notFound, PackyardError, type EventStore } from '@packyard/platform';
import type { SecretBox } from '@packyard/platform/crypto/index';
import { generateRepositoryKey, readSigningKey, type RepositoryKeyIdentity, type SigningKey } from '../domain';
import { signingFingerprints, signingKeyDecider, type SigningKeyState, type StoredKey } from './signing-key.decider';
import { isSigningKeyIntegrationEvent, signingKeyStream } from './signing-key.events';

/** what signing a repository's files needs, as its key stream says now */
export interface RepositoryKeys {
  /** signs uploaded packages and is named as the repository's key */
  current: { key: SigningKey; fingerprint: string };
  /** sign metadata: the current key, and the previous one while both sign */
  metadataSigners: SigningKey[];
  /** every key the repository has had, newest first: all are served, for packages they signed */
  keys: StoredKey[];
  previous?: { fingerprint: string; overlapUntil: string };
}

/**
 * A key's lifetime is Packyard's to keep: it is recorded with the key, shown, and the key is
 * rolled before it ends. It is deliberately not written into the OpenPGP key: openpgp.js
 * marks the key-expiration subpacket critical, and the OpenPGP parser of rpm up to 4.18
 * (EL8, EL9, Debian 12) refuses to import a key with a critical subpacket it does not know.
 */
export interface KeyPolicy {
  lifetimeSeconds: number;
}

type ActiveState = Extract<SigningKeyState, { status: 'active' }>;

const defaultIdentity = (repositoryId: string): RepositoryKeyIdentity => ({
  name: `Packyard repository ${repositoryId}`,
  email: `repository-${repositoryId}@packyard.invalid`,
});

/**
 * The repositories' keys: generated on RepositoryCreated (or on the first Sign that beats
 * that reaction) and on every roll, stored sealed with the master key. The key stream is
 * read on every use (a handful of events), so a roll made by another replica is seen at
 * once; unsealing and parsing an RSA-4096 key costs more than the signature itself, so
 * the unlocked keys are kept per fingerprint (a fingerprint's key never changes).
 */
export class KeyRing {
  private readonly unlocked = new Map<string, Promise<SigningKey>>();
  private readonly generating = new Map<string, Promise<void>>();
  private readonly rolling = new Set<string>();

  constructor(
    private readonly events: EventStore,
    private readonly box: SecretBox,
    private readonly policy: KeyPolicy,
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
    if ((await this.state(repositoryId)).status !== 'none') return;
    const key = await this.newKey(repositoryId, identity);
    try {
      await handleCommand(this.events, signingKeyStream(repositoryId), signingKeyDecider, { type: 'RegisterKey', repositoryId, key, now: key.createdAt }, { retries: 0 });
    } catch (error) {
      // another process registered first: its key is the repository's key
      const lost = error instanceof ConcurrencyError || (error instanceof PackyardError && error.kind === 'CONFLICT');
      if (!lost) throw error;
    }
  }

  /**
   * Starts a roll and returns at once: the new key (seconds of RSA work) becomes current,
   * the current one keeps signing beside it until `overlapUntil`. Refused while a roll is
   * being made here or its overlap lasts; `onFailure` hears a roll that failed later.
   */
  async startRoll(repositoryId: string, overlapUntil: Date, reason: 'manual' | 'expiry', onFailure: (error: unknown) => void): Promise<{ replaced: string }> {
    // a roll right after the repository was made waits for its first key
    await this.ensureKey(repositoryId);
    const state = await this.active(repositoryId);
    if (state.previous || this.rolling.has(repositoryId)) {
      throw conflict('PACKYARD_SIGNING_KEY_ROLL_IN_PROGRESS', `The key is already being rolled${state.previous ? `; the previous key signs until ${state.previous.overlapUntil}` : ''}`);
    }
    this.rolling.add(repositoryId);
    this.roll(repositoryId, state, overlapUntil, reason)
      .catch(onFailure)
      .finally(() => this.rolling.delete(repositoryId));
    return { replaced: state.keys[0].fingerprint };
  }

  /** a new current key; the current one keeps signing beside it until `overlapUntil` */
  async roll(repositoryId: string, state: ActiveState, overlapUntil: Date, reason: 'manual' | 'expiry'): Promise<void> {
    const key = await this.newKey(repositoryId, await this.identityOf(state));
    await handleCommand(
      this.events,
      signingKeyStream(repositoryId),
      signingKeyDecider,
      { type: 'RollKey', repositoryId, key, overlapUntil: overlapUntil.toISOString(), reason, now: key.createdAt },
      { retries: 0, isIntegration: isSigningKeyIntegrationEvent },
    );
  }

  /** ends the overlap of a roll: from now on only the current key signs */
  async retirePrevious(repositoryId: string): Promise<void> {
    await handleCommand(this.events, signingKeyStream(repositoryId), signingKeyDecider, { type: 'RetirePreviousKey', repositoryId, now: new Date().toISOString() }, {
      isIntegration: isSigningKeyIntegrationEvent,
    });
  }

  /** the repository's keys, generating the first one when it has none yet */
  async keys(repositoryId: string): Promise<RepositoryKeys> {
    let state = await this.state(repositoryId);
    if (state.status === 'none') {
      await this.ensureKey(repositoryId);
      state = await this.state(repositoryId);
    }
    if (state.status !== 'active') throw notFound('PACKYARD_SIGNING_KEY_NOT_FOUND', 'The repository has no signing key');
    const byFingerprint = new Map(state.keys.map((key) => [key.fingerprint, key]));
    const signers = await Promise.all(signingFingerprints(state).map((fingerprint) => this.unlock(repositoryId, byFingerprint.get(fingerprint)!)));
    return {
      current: { key: signers[0], fingerprint: state.keys[0].fingerprint },
      metadataSigners: signers,
      keys: state.keys,
      ...(state.previous ? { previous: state.previous } : {}),
    };
  }

  async destroy(repositoryId: string): Promise<void> {
    const state = await this.state(repositoryId);
    if (state.status === 'active') for (const key of state.keys) this.unlocked.delete(key.fingerprint);
    await handleCommand(this.events, signingKeyStream(repositoryId), signingKeyDecider, { type: 'DestroyKey', repositoryId, now: new Date().toISOString() });
  }

  private async state(repositoryId: string): Promise<SigningKeyState> {
    return (await loadAggregate(this.events, signingKeyStream(repositoryId), signingKeyDecider)).state;
  }

  private async active(repositoryId: string): Promise<ActiveState> {
    const state = await this.state(repositoryId);
    if (state.status !== 'active') throw notFound('PACKYARD_SIGNING_KEY_NOT_FOUND', 'The repository has no signing key');
    return state;
  }

  private async newKey(repositoryId: string, identity: RepositoryKeyIdentity): Promise<Omit<StoredKey, 'algorithm'>> {
    const created = new Date();
    const key = await generateRepositoryKey(identity, { date: created });
    return {
      fingerprint: key.fingerprint,
      publicKeyArmored: key.publicKeyArmored,
      // bound to the repository: a sealed key copied to another repository's stream will not open
      sealedPrivateKey: this.box.seal(key.privateKeyArmored, repositoryId),
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + this.policy.lifetimeSeconds * 1000).toISOString(),
    };
  }

  /** the new key carries the user ID of the key it follows, so clients see the same name */
  private async identityOf(state: ActiveState): Promise<RepositoryKeyIdentity> {
    const user = (await readKey({ armoredKey: state.keys[0].publicKeyArmored })).users[0]?.userID;
    return { name: user?.name ?? 'Packyard repository', email: user?.email ?? 'signing@packyard.invalid' };
  }

  private unlock(repositoryId: string, key: StoredKey): Promise<SigningKey> {
    let cached = this.unlocked.get(key.fingerprint);
    if (!cached) {
      cached = readSigningKey(this.box.open(key.sealedPrivateKey, repositoryId).toString('utf8'));
      this.unlocked.set(key.fingerprint, cached);
      cached.catch(() => this.unlocked.delete(key.fingerprint));
    }
    return cached;
  }
}
