import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id with the library's defaults, which are OWASP's recommendation
 * (19 MiB, 2 passes, 1 lane); the parameters travel in the PHC string, so they can
 * be raised later without breaking stored hashes.
 */
export const hashPassword = (password: string) => hash(password);

// a sign-in for an unknown address (or an account without a password) still costs one
// verification, so timing does not reveal which addresses have accounts
const decoy = hash('packyard-decoy-password');

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (!passwordHash) {
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
