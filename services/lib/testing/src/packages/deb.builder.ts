import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DebSpec {
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  readonly depends?: string;
  readonly description?: string;
  readonly compression?: 'gzip' | 'xz' | 'zstd' | 'none';
  /** More control fields, written after the usual ones in the order given. */
  readonly fields?: readonly (readonly [name: string, value: string])[];
  /** More installed files: path under the root → content (besides usr/share/doc/<name>/README). */
  readonly files?: Readonly<Record<string, string>>;
}

/** Builds a real .deb with `dpkg-deb --build`; returns the path of the file in `outDir`. */
export async function buildDeb(spec: DebSpec, outDir: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'packyard-deb-'));
  try {
    const docDir = join(root, 'usr/share/doc', spec.name);
    await mkdir(join(root, 'DEBIAN'), { recursive: true });
    await mkdir(docDir, { recursive: true });
    await writeFile(join(docDir, 'README'), `${spec.name} ${spec.version}\n`);
    for (const [path, content] of Object.entries(spec.files ?? {})) {
      await mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), content);
    }
    await writeFile(join(root, 'DEBIAN/control'), debControl(spec));
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `${spec.name}_${spec.version.replace(/^\d+:/, '')}_${spec.arch}.deb`);
    await run('dpkg-deb', ['--root-owner-group', `-Z${spec.compression ?? 'xz'}`, '--build', root, file]);
    return file;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function debControl(spec: DebSpec): string {
  const description = spec.description ?? `${spec.name} test package\n built by the Packyard test kit.`;
  return [
    `Package: ${spec.name}`,
    `Version: ${spec.version}`,
    `Architecture: ${spec.arch}`,
    'Maintainer: Packyard Tests <tests@packyard.example>',
    'Installed-Size: 1',
    ...(spec.depends ? [`Depends: ${spec.depends}`] : []),
    'Section: misc',
    'Priority: optional',
    `Description: ${description}`,
    ...(spec.fields ?? []).map(([name, value]) => `${name}: ${value}`),
    '',
  ].join('\n');
}
