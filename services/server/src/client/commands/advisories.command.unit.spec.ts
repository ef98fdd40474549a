import { describe, expect, it } from 'vitest';
import { parseNevra } from './advisories.command';

describe('parseNevra', () => {
  it('reads name-[epoch:]version-release.arch as rpm -q prints it, dashes in the name included', () => {
    expect(parseNevra('hello-2.0-1.el9.x86_64', 'el/9')).toEqual({ name: 'hello', epoch: 0, version: '2.0', release: '1.el9', arch: 'x86_64', distribution: 'el/9' });
    expect(parseNevra('python3-foo-bar-1:2.0.1-3.noarch', 'el/any-version')).toEqual({ name: 'python3-foo-bar', epoch: 1, version: '2.0.1', release: '3', arch: 'noarch', distribution: 'el/any-version' });
  });

  it('refuses what is not a NEVRA with a usage error', () => {
    expect(() => parseNevra('hello-2.0', 'el/9')).toThrow(/is not name-\[epoch:\]version-release\.arch/);
  });
});
