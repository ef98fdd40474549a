import { describe, expect, it } from 'vitest';
import { findDebianMirror } from './apt-sources';

describe('findDebianMirror', () => {
  it('reads the bookworm mirror from a deb822 file, not the security archive listed beside it', () => {
    const sources = [
      'Types: deb',
      '# http://snapshot.debian.org/archive/debian/20250520T000000Z',
      'URIs: http://deb.debian.org/debian',
      'Suites: bookworm bookworm-updates',
      'Components: main',
      '',
      'Types: deb',
      'URIs: http://deb.debian.org/debian-security',
      'Suites: bookworm-security',
      'Components: main',
    ].join('\n');
    expect(findDebianMirror({ 'debian.sources': sources }, 'bookworm')).toBe('http://deb.debian.org/debian');
  });

  it('reads one-line sources with options and skips files apt would ignore', () => {
    const files = {
      'sources.list': '# deb http://old.example/debian bookworm main\ndeb-src http://src.example/debian bookworm main\n',
      'google.list.disabled': 'deb http://disabled.example/debian bookworm main\n',
      'mirror.list': 'deb [arch=amd64 signed-by=/usr/share/keyrings/debian.gpg] http://mirror.example/debian bookworm main\n',
    };
    expect(findDebianMirror(files, 'bookworm')).toBe('http://mirror.example/debian');
  });

  it('ignores deb822 stanzas that are disabled or only offer other suites', () => {
    const files = {
      'a.sources': 'Types: deb\nURIs: http://off.example/debian\nSuites: bookworm\nEnabled: no\n',
      'b.sources': 'Types: deb\nURIs: http://trixie.example/debian\nSuites: trixie\n',
    };
    expect(findDebianMirror(files, 'bookworm')).toBeUndefined();
  });
});
