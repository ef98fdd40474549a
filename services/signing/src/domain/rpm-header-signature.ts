import * as openpgp from 'openpgp';

/** rpm's own default (`%_gpg_digest_algo sha256`); every rpm since EL6 verifies it. */
const RPM_HEADER_SIGNING_CONFIG: openpgp.PartialConfig = {
  preferredHashAlgorithm: openpgp.enums.hash.sha256,
  // one plain signature packet, as gpg --detach-sign writes for rpmsign: no salt notation
  nonDeterministicSignaturesViaNotation: false,
};

/**
 * The OpenPGP signature packet rpm stores as RPMSIGTAG_RSA: a binary-document signature
 * (class 0x00) over the main header bytes, from magic to the end of its data store.
 */
export async function signRpmHeader(header: Uint8Array, key: openpgp.PrivateKey, options: { date?: Date } = {}): Promise<Uint8Array> {
  const message = await openpgp.createMessage({ binary: header });
  return openpgp.sign({ message, signingKeys: key, detached: true, format: 'binary', date: options.date, config: RPM_HEADER_SIGNING_CONFIG });
}
