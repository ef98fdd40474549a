import { ConcurrencyError, type ExpectedVersion } from './event-store.port';

/** Throws `ConcurrencyError` when a stream at version `actual` does not match `expected`. */
export function checkExpectedVersion(stream: string, expected: ExpectedVersion, actual: number): void {
  const matches = expected === 'ANY' || (expected === 'NO_STREAM' ? actual === 0 : actual === expected);
  if (!matches) throw new ConcurrencyError(stream, expected, actual);
}
