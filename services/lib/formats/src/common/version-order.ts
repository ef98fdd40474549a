// Which of two versions is newer, the way the package managers decide it: retention keeps
// "the last N versions" in the order apt and dnf would upgrade through them, not upload order.

const isDigit = (c: string) => c >= '0' && c <= '9';
const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

function splitEpoch(version: string): [number, string] {
  const colon = version.indexOf(':');
  return colon > 0 && /^\d+$/.test(version.slice(0, colon)) ? [Number(version.slice(0, colon)), version.slice(colon + 1)] : [0, version];
}

/** dpkg's character weight in the non-digit part: ~ before everything (even the end), letters before other characters */
const debWeight = (c: string | undefined) => (c === undefined ? 0 : c === '~' ? -1 : isDigit(c) ? 0 : isLetter(c) ? c.charCodeAt(0) : c.charCodeAt(0) + 256);

/** dpkg's verrevcmp (Debian Policy §5.6.12): alternating non-digit and digit runs */
function debPartCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const wa = debWeight(a[i]);
      const wb = debWeight(b[j]);
      if (wa !== wb) return wa - wb;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && isDigit(a[i]) && j < b.length && isDigit(b[j])) {
      if (!firstDiff) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && isDigit(a[i])) return 1;
    if (j < b.length && isDigit(b[j])) return -1;
    if (firstDiff) return firstDiff;
  }
  return 0;
}

/**
 * Compares `[epoch:]version[-release]` strings: epochs as numbers, then the version, then the
 * release (after the last dash), each with the package manager's own part comparison.
 */
function compareEpochVersionRelease(a: string, b: string, comparePart: (a: string, b: string) => number): number {
  const split = (value: string): [number, string, string] => {
    const [epoch, rest] = splitEpoch(value);
    const dash = rest.lastIndexOf('-');
    return dash < 0 ? [epoch, rest, ''] : [epoch, rest.slice(0, dash), rest.slice(dash + 1)];
  };
  const [epochA, versionA, releaseA] = split(a);
  const [epochB, versionB, releaseB] = split(b);
  return epochA - epochB || comparePart(versionA, versionB) || comparePart(releaseA, releaseB);
}

/** Debian's [epoch:]upstream[-revision] order, as `dpkg --compare-versions`; negative when a is older */
export const compareDebVersions = (a: string, b: string): number => compareEpochVersionRelease(a, b, debPartCompare);

/** rpm's rpmvercmp for one of version or release: alphanumeric segments, ~ older and ^ newer than the end */
function rpmSegmentCompare(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !isDigit(a[i]) && !isLetter(a[i]) && a[i] !== '~' && a[i] !== '^') i++;
    while (j < b.length && !isDigit(b[j]) && !isLetter(b[j]) && b[j] !== '~' && b[j] !== '^') j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = isDigit(a[i]);
    const take = (s: string, from: number) => {
      let to = from;
      while (to < s.length && (numeric ? isDigit(s[to]) : isLetter(s[to]))) to++;
      return to;
    };
    const endA = take(a, i);
    const endB = take(b, j);
    // a numeric segment is newer than an alphabetic one
    if (endB === j) return numeric ? 1 : -1;
    let segA = a.slice(i, endA);
    let segB = b.slice(j, endB);
    if (numeric) {
      segA = segA.replace(/^0+/, '');
      segB = segB.replace(/^0+/, '');
      if (segA.length !== segB.length) return segA.length - segB.length;
    }
    if (segA !== segB) return segA < segB ? -1 : 1;
    i = endA;
    j = endB;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

/** rpm's [epoch:]version-release order (as Packyard stores an rpm's version), as `rpm.vercmp`; negative when a is older */
export const compareRpmVersions = (a: string, b: string): number => compareEpochVersionRelease(a, b, rpmSegmentCompare);
