import { type ControlField, type DebContents, type DebFileDigests, type RpmDependency, type RpmPackage, type SourceIndexFile, controlValue } from '@packyard/formats';
import type { PackageDetails, PackageFact, PackageRelation } from '@packyard/proto/packyard/artifact/v1/artifact';
import type { PackageUploaded } from '@packyard/proto/packyard/artifact/v1/events';

/** what the package page shows of a file list at most (a .deb's is cut at upload already) */
export const MAX_LISTED_FILES = 10_000;

// Debian Policy §7 relationship fields, in the order dpkg's manual lists them.
const DEB_RELATIONS = ['Depends', 'Pre-Depends', 'Recommends', 'Suggests', 'Enhances', 'Breaks', 'Conflicts', 'Provides', 'Replaces'] as const;
const DEB_FACTS = ['Maintainer', 'Section', 'Priority', 'Installed-Size', 'Homepage', 'Source', 'Multi-Arch'] as const;

const RPM_RELATIONS = [
  ['Requires', 'requires'],
  ['Provides', 'provides'],
  ['Conflicts', 'conflicts'],
  ['Obsoletes', 'obsoletes'],
  ['Recommends', 'recommends'],
  ['Suggests', 'suggests'],
  ['Supplements', 'supplements'],
  ['Enhances', 'enhances'],
] as const;

const RPM_OPERATORS = { EQ: '=', LT: '<', LE: '<=', GT: '>', GE: '>=' } as const;

type DetailsFromFile = Omit<PackageDetails, 'package' | 'versions' | 'distributions'>;

/** The package page's facts from what the upload recorded (the PackageUploaded index entry). */
export function detailsFromUpload(uploaded: PackageUploaded): DetailsFromFile {
  if (uploaded.kind === 'RPM') return rpmDetails(JSON.parse(uploaded.indexEntryJson) as { rpm: RpmPackage });
  const entry = JSON.parse(uploaded.indexEntryJson) as DebEntry | SourceEntry;
  return 'source' in entry ? sourceDetails(entry.source) : debDetails(entry);
}

/** a Debian source package's entry: the .dsc's fields and its files, the .dsc first */
interface SourceEntry {
  source: { control: ControlField[]; files: SourceIndexFile[] };
}

interface DebEntry {
  control: ControlField[];
  file: DebFileDigests;
  /** recorded since the package page exists; older uploads have none */
  contents?: DebContents;
}

/** Policy §5.6.13: continuation lines start with a space; " ." is an empty line. */
function unfoldDescription(lines: string[]): string {
  return lines.map((line) => (line.trim() === '.' ? '' : line.replace(/^ /, ''))).join('\n');
}

/** "libc6 (>= 2.34), foo | bar" → ["libc6 (>= 2.34)", "foo | bar"] */
const splitRelation = (value: string) =>
  value
    .split(',')
    .map((item) => item.replace(/\s+/g, ' ').trim())
    .filter(Boolean);

function debDetails({ control, file, contents }: DebEntry): DetailsFromFile {
  const [summary = '', ...rest] = (controlValue(control, 'Description') ?? '').split('\n');
  const relations: PackageRelation[] = DEB_RELATIONS.flatMap((relation) => {
    const value = controlValue(control, relation);
    return value ? [{ relation, items: splitRelation(value) }] : [];
  });
  const facts: PackageFact[] = DEB_FACTS.flatMap((name) => {
    const value = controlValue(control, name);
    return value ? [{ name, value: value.trim() }] : [];
  });
  return {
    kind: 'DEB',
    summary: summary.trim(),
    description: unfoldDescription(rest),
    relations,
    facts,
    files: [...(contents?.paths ?? [])],
    filesTotal: contents?.total ?? 0,
    filesNote: contents ? (contents.note ?? '') : 'the file list was not recorded for this upload (uploaded before Packyard read file lists)',
    md5: file.md5,
    sha1: file.sha1,
    sha512: file.sha512,
  };
}

// a .dsc's build relations and facts (Policy §5.4)
const SOURCE_RELATIONS = ['Build-Depends', 'Build-Depends-Arch', 'Build-Depends-Indep', 'Build-Conflicts', 'Build-Conflicts-Arch', 'Build-Conflicts-Indep'] as const;
const SOURCE_FACTS = ['Format', 'Binary', 'Architecture', 'Maintainer', 'Uploaders', 'Homepage', 'Standards-Version', 'Vcs-Browser', 'Vcs-Git'] as const;

/** a source package's page: its build relations, facts, the files of the package (the .dsc first) and the .dsc's digests */
function sourceDetails({ control, files }: SourceEntry['source']): DetailsFromFile {
  const relations: PackageRelation[] = SOURCE_RELATIONS.flatMap((relation) => {
    const value = controlValue(control, relation);
    return value ? [{ relation, items: splitRelation(value) }] : [];
  });
  const facts: PackageFact[] = SOURCE_FACTS.flatMap((name) => {
    const value = controlValue(control, name);
    return value ? [{ name, value: value.replace(/\s+/g, ' ').trim() }] : [];
  });
  const [dsc] = files;
  return {
    kind: 'DEB',
    summary: `source package ${controlValue(control, 'Source') ?? ''}`.trim(),
    description: '',
    relations,
    facts,
    files: files.map((file) => file.name),
    filesTotal: files.length,
    filesNote: '',
    md5: dsc?.md5 ?? '',
    sha1: dsc?.sha1 ?? '',
    sha512: dsc?.sha512 ?? '',
  };
}

/** "glibc >= 2:2.34-1" as rpm -qR prints a dependency */
export function rpmDependencyText(dependency: RpmDependency): string {
  if (!dependency.flags) return dependency.name;
  const evr = `${dependency.epoch && dependency.epoch !== '0' ? `${dependency.epoch}:` : ''}${dependency.version ?? ''}${dependency.release ? `-${dependency.release}` : ''}`;
  return `${dependency.name} ${RPM_OPERATORS[dependency.flags]} ${evr}`;
}

function rpmDetails({ rpm }: { rpm: RpmPackage }): DetailsFromFile {
  const relations: PackageRelation[] = RPM_RELATIONS.flatMap(([relation, field]) => {
    const items = [...new Set(rpm[field].map(rpmDependencyText))];
    return items.length ? [{ relation, items }] : [];
  });
  const facts: PackageFact[] = (
    [
      ['License', rpm.license],
      ['URL', rpm.url],
      ['Vendor', rpm.vendor],
      ['Group', rpm.group],
      ['Packager', rpm.packager],
      ['Installed size', String(rpm.installedSize)],
      ['Source RPM', rpm.sourceRpm],
    ] as const
  ).flatMap(([name, value]) => (value ? [{ name, value }] : []));
  const paths = rpm.files.filter((entry) => entry.type !== 'dir').map((entry) => entry.path);
  return {
    kind: 'RPM',
    summary: rpm.summary,
    description: rpm.description,
    relations,
    facts,
    files: paths.slice(0, MAX_LISTED_FILES),
    filesTotal: paths.length,
    filesNote: paths.length > MAX_LISTED_FILES ? `the first ${MAX_LISTED_FILES} of ${paths.length} files are listed` : '',
    md5: '',
    sha1: '',
    sha512: '',
  };
}
