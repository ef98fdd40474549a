/** `{repositoryUrl}/gpg.key`: the repository's public keys, armored, for `gpg --dearmor`, `rpm --import` and gpgkey= */
export const ARMORED_KEY_FILE = 'gpg.key';
/** `{repositoryUrl}/keyring.gpg`: the same keys as a binary keyring, what apt's signed-by= reads as is */
export const KEYRING_FILE = 'keyring.gpg';

/**
 * The two key files of a repository from every public key it has had (armored, newest
 * first): one armored block per key (gpg, rpm --import and dnf read them all), and the
 * keys' packets one after another as a binary keyring.
 */
export async function publicKeyFiles(armoredKeys: readonly string[]): Promise<{ armored: string; binary: Buffer }> {
  // loaded at the first use: an edge worker imports this module, and needs it only for a
  // repository whose published generations hold no key files yet
  const { readKey } = await import('openpgp');
  const keys = await Promise.all(armoredKeys.map((armoredKey) => readKey({ armoredKey })));
  return {
    armored: armoredKeys.map((key) => key.trimEnd()).join('\n') + '\n',
    binary: Buffer.concat(keys.map((key) => key.toPublic().write())),
  };
}
