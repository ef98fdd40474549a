export { generateRepositoryKey, readSigningKey } from './repository-key';
export type { GeneratedRepositoryKey, RepositoryKeyIdentity } from './repository-key';
export { SigningKey } from './signing-key';
export { clearsign, detachSign } from './metadata-signature';
export type { SigningOptions } from './metadata-signature';
export { signRpmHeader } from './rpm-header-signature';
