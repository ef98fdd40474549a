import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SourcePackageSpec {
  readonly name: string;
  /** upstream version; a "3.0 (quilt)" package gets `-<revision>`, a "3.0 (native)" one none */
  readonly upstreamVersion: string;
  /** the Debian revision (default 1); the orig tarball is the same bytes for every revision */
  readonly revision?: string;
  /** the upstream README (default "<name> <upstreamVersion>"): another text makes another orig tarball */
  readonly readme?: string;
  readonly format?: '3.0 (quilt)' | '3.0 (native)';
  /** more fields of debian/control's source stanza, written in the order given */
  readonly fields?: readonly (readonly [name: string, value: string])[];
}

export interface BuiltSourcePackage {
  /** the .dsc's path */
  readonly dsc: string;
  /** every file dpkg-source wrote, the .dsc included, as paths */
  readonly files: string[];
  readonly version: string;
}

/**
 * Builds a real Debian source package with `dpkg-source -b` (dpkg-dev): a .dsc with an
 * orig tarball and a debian.tar.xz ("3.0 (quilt)"), or a single tarball ("3.0 (native)"),
 * written into `outDir`.
 */
export async function buildSourcePackage(spec: SourcePackageSpec, outDir: string): Promise<BuiltSourcePackage> {
  const format = spec.format ?? '3.0 (quilt)';
  const native = format === '3.0 (native)';
  const version = native ? spec.upstreamVersion : `${spec.upstreamVersion}-${spec.revision ?? '1'}`;
  const work = await mkdtemp(join(tmpdir(), 'packyard-source-'));
  try {
    const treeName = `${spec.name}-${spec.upstreamVersion}`;
    const tree = join(work, treeName);
    await mkdir(join(tree, 'debian/source'), { recursive: true });
    await writeFile(join(tree, 'README'), spec.readme ?? `${spec.name} ${spec.upstreamVersion}\n`);
    // reproducible (no times, owners or gzip name), so two revisions share one orig tarball as they do in Debian
    const orig = join(work, `${spec.name}_${spec.upstreamVersion}.orig.tar.gz`);
    if (!native) await run('sh', ['-c', 'tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --exclude=debian -C "$1" -cf - "$2" | gzip -n >"$3"', 'sh', work, treeName, orig]);
    await writeFile(join(tree, 'debian/source/format'), `${format}\n`);
    await writeFile(
      join(tree, 'debian/control'),
      [
        `Source: ${spec.name}`,
        'Section: misc',
        'Priority: optional',
        'Maintainer: Packyard Tests <tests@packyard.example>',
        'Build-Depends: debhelper-compat (= 13)',
        'Standards-Version: 4.6.2',
        ...(spec.fields ?? []).map(([name, value]) => `${name}: ${value}`),
        '',
        `Package: ${spec.name}`,
        'Architecture: all',
        `Description: ${spec.name} test package`,
        ' built by the Packyard test kit.',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(tree, 'debian/changelog'),
      `${spec.name} (${version}) unstable; urgency=medium\n\n  * Test release.\n\n -- Packyard Tests <tests@packyard.example>  Tue, 24 Nov 2026 10:00:00 +0000\n`,
    );
    await run('dpkg-source', ['-b', tree], { cwd: work });
    await mkdir(outDir, { recursive: true });
    const files: string[] = [];
    for (const name of await readdir(work)) {
      if (!name.startsWith(`${spec.name}_`)) continue;
      await run('cp', [join(work, name), join(outDir, name)]);
      files.push(join(outDir, name));
    }
    return { dsc: join(outDir, `${spec.name}_${version}.dsc`), files, version };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
