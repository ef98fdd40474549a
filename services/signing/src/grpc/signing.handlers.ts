import type { ServiceImplementation } from 'nice-grpc';
import { RPM_HEADER_MAGIC } from '@packyard/formats';
import { forbidden, invalid, type CallerContext } from '@packyard/platform';
import type { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import { clearsign, detachSign, publicKeyBinary, signRpmHeader } from '../domain';
import type { KeyRing } from '../keys/key-ring';

const MODES = new Set(['clearsign', 'detached', 'detached-armored']);

/**
 * Sign is for modules only (repository publishes, artifact signs uploaded .rpm headers); the public key is public (it is served
 * at the repository's publicKeyUrl), so any caller may read it.
 */
export function signingHandlers(keys: KeyRing): ServiceImplementation<typeof SigningServiceDefinition, CallerContext> {
  return {
    async getPublicKey(request) {
      const key = await keys.key(request.repositoryId);
      return { armored: key.publicKeyArmored, fingerprint: key.fingerprint, binary: Buffer.from(await publicKeyBinary(key.publicKeyArmored)) };
    },

    async sign(request, { caller }) {
      if (caller.kind !== 'system') throw forbidden('Only Packyard modules may sign');
      const unknown = request.modes.filter((mode) => !MODES.has(mode));
      if (unknown.length || request.modes.length === 0) throw invalid('PACKYARD_SIGNING_INVALID_MODE', `Unknown signing modes: ${unknown.join(', ') || '(none)'}`);
      const key = await keys.key(request.repositoryId);
      const date = new Date();
      const modes = new Set(request.modes);
      // InRelease and Release.gpg sign the same bytes, so apt sees one Release either way
      const [clearsigned, detached, detachedArmored] = await Promise.all([
        modes.has('clearsign') ? clearsign(Buffer.from(request.data).toString('utf8'), key.privateKey, { date }) : undefined,
        modes.has('detached') ? detachSign(request.data, key.privateKey, { armor: false, date }) : undefined,
        modes.has('detached-armored') ? detachSign(request.data, key.privateKey, { armor: true, date }) : undefined,
      ]);
      return {
        clearsigned: Buffer.from(clearsigned ?? '', 'utf8'),
        detached: Buffer.from(detached ?? new Uint8Array()),
        detachedArmored: Buffer.from(detachedArmored ?? '', 'utf8'),
        keyFingerprint: key.fingerprint,
      };
    },

    async signRpmHeader(request, { caller }) {
      if (caller.kind !== 'system') throw forbidden('Only Packyard modules may sign');
      // a signature over anything but an rpm header would be a signing oracle for other formats
      if (!RPM_HEADER_MAGIC.equals(request.header.subarray(0, 4))) throw invalid('PACKYARD_SIGNING_NOT_AN_RPM_HEADER', 'The data to sign is not an rpm header');
      const key = await keys.key(request.repositoryId);
      return { signature: Buffer.from(await signRpmHeader(request.header, key.privateKey)), keyFingerprint: key.fingerprint };
    },
  };
}
