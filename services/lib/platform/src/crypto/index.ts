export { createSecretBox, SecretBoxError, MASTER_KEY_BYTES, type SecretBox } from './secret-box';
export { loadOrCreateKey, loadOrCreateMasterKey } from './master-key';
export { hashTokenValue, projectTokenHash, TOKEN_HASH_EVENTS, type TokenHashDocument } from './token-hash';
