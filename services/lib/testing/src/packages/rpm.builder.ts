import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RpmSpec {
  readonly name: string;
  readonly version: string;
  readonly release: string;
  readonly arch: 'noarch' | 'x86_64';
  readonly epoch?: number;
  /** Lines after "Requires:", e.g. "bash >= 4.0" or "(pre) /bin/sh" for Requires(pre). */
  readonly requires?: readonly string[];
  readonly provides?: readonly string[];
  /** Absolute paths; a trailing "/" makes a directory. Default: /usr/share/<name>/README. */
  readonly files?: readonly string[];
  readonly changelog?: readonly { readonly date: string; readonly author: string; readonly text: string }[];
  /** Default: "<name> test package". */
  readonly summary?: string;
  /**
   * 'latin1' writes the spec file (and so every header string) in ISO-8859-1, as older
   * packages were built; rpm 4.18 only warns about it. Default UTF-8.
   */
  readonly encoding?: 'latin1';
}

/**
 * Builds one binary .rpm with `rpmbuild -bb` in a private _topdir: no network, no
 * signing, no build-id links. Returns the path of the file in `outDir`.
 */
export async function buildRpm(spec: RpmSpec, outDir: string): Promise<string> {
  const [file] = await buildRpmBatch([spec], outDir);
  return file;
}

/**
 * Builds many packages with ONE rpmbuild run: every spec after the first becomes a
 * subpackage of the first, which costs one rpmbuild start instead of N. All share the
 * first spec's version, release and arch (rpm requires it of subpackages).
 */
export async function buildRpmBatch(specs: readonly RpmSpec[], outDir: string): Promise<string[]> {
  await rpmbuild(specs, '-bb', join('RPMS', specs[0].arch), outDir);
  const byName = (spec: RpmSpec) => `${spec.name}-${specs[0].version}-${specs[0].release}.${specs[0].arch}.rpm`;
  return specs.map((spec) => join(outDir, byName(spec)));
}

/** Builds the source package of `spec` (`rpmbuild -bs`): `<name>-<version>-<release>.src.rpm` in `outDir`. */
export async function buildSourceRpm(spec: RpmSpec, outDir: string): Promise<string> {
  await rpmbuild([spec], '-bs', 'SRPMS', outDir);
  return join(outDir, `${spec.name}-${spec.version}-${spec.release}.src.rpm`);
}

/** runs rpmbuild in a private _topdir and moves what it wrote to `built` (below the topdir) into `outDir` */
async function rpmbuild(specs: readonly RpmSpec[], mode: '-bb' | '-bs', built: string, outDir: string): Promise<void> {
  const topdir = await mkdtemp(join(tmpdir(), 'packyard-rpm-'));
  try {
    const specFile = join(topdir, 'batch.spec');
    await writeFile(specFile, rpmSpecFile(specs), specs[0].encoding);
    await run(
      'rpmbuild',
      [
        mode, '--quiet', '--nodeps',
        '--define', `_topdir ${topdir}`,
        '--define', '_build_id_links none',
        '--define', '__os_install_post %{nil}',
        '--define', '_binary_payload w1.gzdio',
        '--define', '_source_payload w1.gzdio',
        ...(specs[0].encoding ? ['--define', '_invalid_encoding_terminates_build 0'] : []),
        '--target', specs[0].arch,
        specFile,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    await mkdir(outDir, { recursive: true });
    for (const name of await readdir(join(topdir, built))) await rename(join(topdir, built, name), join(outDir, name));
  } finally {
    await rm(topdir, { recursive: true, force: true });
  }
}

function rpmSpecFile(specs: readonly RpmSpec[]): string {
  const [main] = specs;
  const sections = specs.map((spec, i) => {
    const packageLine = i === 0 ? '' : `%package -n ${spec.name}\n`;
    const nameSuffix = i === 0 ? '' : ` -n ${spec.name}`;
    const files = spec.files ?? [`/usr/share/${spec.name}/README`];
    return {
      preamble:
        packageLine +
        `Summary: ${spec.summary ?? `${spec.name} test package`}\n` +
        (i === 0 ? '' : `Version: ${main.version}\n`) +
        (spec.requires ?? []).map((line) => (line.startsWith('(') ? `Requires${line.replace(/^(\(\w+\))\s*/, '$1: ')}` : `Requires: ${line}`)).join('\n') + '\n' +
        (spec.provides ?? []).map((line) => `Provides: ${line}`).join('\n') + '\n' +
        `%description${nameSuffix}\n${spec.name}, built by the Packyard test kit.\n`,
      install: files.map((path) => (path.endsWith('/') ? `mkdir -p %{buildroot}${path}` : `mkdir -p %{buildroot}$(dirname ${path}) && echo ${spec.name} > %{buildroot}${path}`)).join('\n'),
      files: `%files${nameSuffix}\n${files.map((path) => (path.endsWith('/') ? `%dir ${path.slice(0, -1)}` : path)).join('\n')}\n`,
    };
  });
  const changelog = (main.changelog ?? []).map((entry) => `* ${entry.date} ${entry.author}\n- ${entry.text}\n`).join('\n');
  return [
    `Name: ${main.name}`,
    ...(main.epoch !== undefined ? [`Epoch: ${main.epoch}`] : []),
    `Version: ${main.version}`,
    `Release: ${main.release}`,
    'License: MIT',
    // Test packages declare their dependencies; rpm's file scanners would only add time.
    'AutoReqProv: no',
    'URL: https://packyard.example/',
    `BuildArch: ${main.arch}`,
    sections.map((section) => section.preamble).join('\n'),
    '%prep',
    '%build',
    '%install',
    sections.map((section) => section.install).join('\n'),
    sections.map((section) => section.files).join('\n'),
    ...(changelog ? ['%changelog', changelog] : []),
    '',
  ].join('\n');
}
