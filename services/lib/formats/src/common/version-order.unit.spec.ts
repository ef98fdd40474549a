import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compareDebVersions, compareRpmVersions } from './version-order';

// Golden against the real tools on this machine: dpkg --compare-versions and rpm's own vercmp.

const DEB_VERSIONS = ['1.0', '1.0-1', '1.0-2', '1.0~rc1', '1.0~rc1-1', '1.0+b1', '1.0.1', '1.00', '1.10', '1.9', '1:0.1', '2.0a', '2.0', '2.0-1ubuntu1', '2.0-1~bpo1', '0.9~', '1.0a~', '10'];
const RPM_VERSIONS = ['1.0-1', '1.0-2', '1.0~rc1-1', '1.0^git1-1', '1.0.1-1', '1.00-1', '1.10-1', '1.9-1', '1:0.1-1', '2.0a-1', '2.0-1', '2.0-1.el9', '2.0-10', '1.0-1a', '1.0_1-1', '2-1'];

const sign = (n: number) => Math.sign(n);
/** dpkg's answers (-1, 0, 1) for every pair, from one shell rather than a process per pair */
function dpkgOrder(pairs: (readonly [string, string])[]): number[] {
  const script = 'while read -r a b; do if dpkg --compare-versions "$a" lt "$b"; then echo -1; elif dpkg --compare-versions "$a" eq "$b"; then echo 0; else echo 1; fi; done';
  return execFileSync('sh', ['-c', script], { input: pairs.map(([a, b]) => `${a} ${b}`).join('\n') + '\n', encoding: 'utf8' }).trim().split('\n').map(Number);
}

const allPairs = (versions: string[]) => versions.flatMap((a) => versions.map((b) => [a, b] as const));

describe('compareDebVersions', () => {
  it('orders every pair as dpkg does', () => {
    const pairs = allPairs(DEB_VERSIONS);
    const expected = dpkgOrder(pairs);
    expect(expected).toHaveLength(pairs.length);
    const mismatches = pairs.filter(([a, b], index) => sign(compareDebVersions(a, b)) !== expected[index]).map(([a, b]) => `${a} vs ${b}`);
    expect(mismatches).toEqual([]);
  });
});

describe('compareRpmVersions', () => {
  it('orders every pair as rpm.vercmp does', () => {
    const pairs = allPairs(RPM_VERSIONS);
    const script = pairs.map(([a, b]) => `print(rpm.vercmp("${a}", "${b}") .. "\\n")`).join(' ');
    const expected = execFileSync('rpm', ['--eval', `%{lua: ${script}}`], { encoding: 'utf8' }).trim().split('\n').map(Number);
    expect(expected).toHaveLength(pairs.length);
    const mismatches = pairs.filter(([a, b], index) => sign(compareRpmVersions(a, b)) !== sign(expected[index])).map(([a, b]) => `${a} vs ${b}`);
    expect(mismatches).toEqual([]);
  });
});
