/** `{repositoryUrl}/gpg.key`: the repository's public keys, armored, for `gpg --dearmor`, `rpm --import` and gpgkey= */
export const ARMORED_KEY_FILE = 'gpg.key';
/** `{repositoryUrl}/keyring.gpg`: the same keys as a binary keyring, what apt's signed-by= reads as is */
export const KEYRING_FILE = 'keyring.gpg';
