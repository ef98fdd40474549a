/**
 * FNV-1a over a string: cheap, and the same in every process and release, so it can decide
 * where content-defined blocks and parts end (the same key ends one in every build).
 */
export function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/**
 * fnv1a finished as MurmurHash3 finishes, so that every bit depends on every character:
 * FNV-1a's low bits alone hardly vary across keys that differ in a number (not one of
 * 100,000 pool paths `…/rig-package-N/…` had fnv1a % 1024 === 0).
 */
export function mixedHash(key: string): number {
  let hash = fnv1a(key);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
