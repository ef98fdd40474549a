import type { ServiceImplementation } from 'nice-grpc';
import { publicKeyFiles, RPM_HEADER_MAGIC } from '@packyard/formats';
import { forbidden, invalid, isServiceCaller, type CallerContext, type PackyardClient } from '@packyard/platform';
import type { RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { clearsign, detachSign, signRpmHeader } from '../domain';
import type { KeyRing, RepositoryKeys } from '../keys/key-ring';

const MODES = new Set(['clearsign', 'detached', 'detached-armored']);
/** a longer overlap keeps a possibly compromised key signing for too long */
const MAX_OVERLAP_SECONDS = 90 * 24 * 3600;

export interface RollSettings {
  /** used when a roll names no overlap */
  defaultOverlapSeconds: number;
  /** a roll runs on after the call answered; its failure is only heard here */
  onRollFailure: (repositoryId: string, error: unknown) => void;
}

const keyInfos = (keys: RepositoryKeys) =>
  keys.keys.map((key, index) => ({
    fingerprint: key.fingerprint,
    algorithm: key.algorithm,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    status: index === 0 ? 'current' : keys.previous?.fingerprint === key.fingerprint ? 'previous' : 'retired',
    signsUntil: keys.previous?.fingerprint === key.fingerprint ? keys.previous.overlapUntil : '',
  }));

/**
 * Sign and SignRpmHeader are for modules only (repository publishes, artifact signs
 * uploaded .rpm headers); the public keys are public (served at the repository's
 * publicKeyUrl), so any caller may read them. Listing and rolling keys is for whoever
 * may see the repository: the repository module answers that (404 otherwise).
 */
export function signingHandlers(
  keys: KeyRing,
  repositories: PackyardClient<typeof RepositoryServiceDefinition>,
  settings: RollSettings,
): ServiceImplementation<typeof SigningServiceDefinition, CallerContext> {
  return {
    async getPublicKey(request) {
      const repository = await keys.keys(request.repositoryId);
      const { armored, binary } = await publicKeyFiles(repository.keys.map((key) => key.publicKeyArmored));
      return { armored, fingerprint: repository.current.fingerprint, binary };
    },

    async sign(request, { caller }) {
      if (!isServiceCaller(caller)) throw forbidden('Only Packyard modules may sign');
      const unknown = request.modes.filter((mode) => !MODES.has(mode));
      if (unknown.length || request.modes.length === 0) throw invalid('PACKYARD_SIGNING_INVALID_MODE', `Unknown signing modes: ${unknown.join(', ') || '(none)'}`);
      const { metadataSigners, current } = await keys.keys(request.repositoryId);
      const date = new Date();
      const modes = new Set(request.modes);
      // InRelease and Release.gpg sign the same bytes, so apt sees one Release either way
      const [clearsigned, detached, detachedArmored] = await Promise.all([
        modes.has('clearsign') ? clearsign(Buffer.from(request.data).toString('utf8'), metadataSigners, { date }) : undefined,
        modes.has('detached') ? detachSign(request.data, metadataSigners, { armor: false, date }) : undefined,
        modes.has('detached-armored') ? detachSign(request.data, metadataSigners, { armor: true, date }) : undefined,
      ]);
      return {
        clearsigned: Buffer.from(clearsigned ?? '', 'utf8'),
        detached: Buffer.from(detached ?? new Uint8Array()),
        detachedArmored: Buffer.from(detachedArmored ?? '', 'utf8'),
        keyFingerprint: current.fingerprint,
      };
    },

    async signRpmHeader(request, { caller }) {
      if (!isServiceCaller(caller)) throw forbidden('Only Packyard modules may sign');
      // a signature over anything but an rpm header would be a signing oracle for other formats
      if (!RPM_HEADER_MAGIC.equals(request.header.subarray(0, 4))) throw invalid('PACKYARD_SIGNING_NOT_AN_RPM_HEADER', 'The data to sign is not an rpm header');
      const { current } = await keys.keys(request.repositoryId);
      return { signature: Buffer.from(await signRpmHeader(request.header, current.key)), keyFingerprint: current.fingerprint };
    },

    async listKeys(request, { caller }) {
      await repositories.getRepository({ id: request.repositoryId, workspaceId: '' }, { caller });
      return { keys: keyInfos(await keys.keys(request.repositoryId)) };
    },

    async rollKey(request, { caller }) {
      await repositories.getRepository({ id: request.repositoryId, workspaceId: '' }, { caller });
      const overlapSeconds = request.overlapSeconds || settings.defaultOverlapSeconds;
      if (overlapSeconds > MAX_OVERLAP_SECONDS) throw invalid('PACKYARD_SIGNING_INVALID_OVERLAP', `The overlap may last at most ${MAX_OVERLAP_SECONDS / 86400} days`);
      const overlapUntil = new Date(Date.now() + overlapSeconds * 1000);
      const { replaced } = await keys.startRoll(request.repositoryId, overlapUntil, 'manual', (error) => settings.onRollFailure(request.repositoryId, error));
      return { replacedFingerprint: replaced, overlapUntil: overlapUntil.toISOString() };
    },
  };
}
