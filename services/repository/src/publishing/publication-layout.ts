import {
  concreteDistributions,
  INSTALL_CODENAMES,
  INSTALL_COMPONENTS,
  isVisibleIn,
  parseDistribution,
  type Distribution,
  type RepositoryKind,
} from '@packyard/formats';

/**
 * Where things live in a published repository (DESIGN §4). repositoryUrl =
 * `{origin}/{deb|rpm}/{workspaceSlug}/{repoName}`; every path below is relative to
 * the distribution root:
 *   DEB  root `{repositoryUrl}/{distro}`:
 *          dists/{version}/InRelease | Release | Release.gpg
 *          dists/{version}/{component}/binary-{arch}/Packages{,.gz,.xz} (+ by-hash/{MD5Sum,SHA256,SHA512}/<hex>)
 *          dists/{version}/{component}/source/Sources{,.gz,.xz}                     (+ by-hash)
 *          dists/{version}/{component}/{debian-installer,debug}/binary-{arch}/Packages{,.gz,.xz} (+ by-hash; own component only)
 *          pool/{component}/{letter}/{name}/{upload distro}/{upload version}/{name}_{version}_{arch}.{deb,udeb,ddeb}
 *          pool/…/{source}_{version}.dsc and the files it lists, in the same directory
 *   RPM  root `{repositoryUrl}/{distro}/{version}`:
 *          repodata/repomd.xml | repomd.xml.asc | repomd.xml.key | <sha256>-{primary,filelists,other}.xml.gz
 *          Packages/{upload distro}/{upload version}/{letter}/{name}-{version}-{release}.{arch}.rpm
 *        and the source packages (.src.rpm) as a repository of their own below it, with the same layout:
 *          SRPMS/repodata/repomd.xml | repomd.xml.asc | … ,  SRPMS/Packages/…/{name}-{version}-{release}.src.rpm
 * The upload distribution is part of a pool path because the same name, version and
 * architecture may be uploaded with different bytes for, say, ubuntu/noble and
 * ubuntu/any-version, and both are visible in the ubuntu/noble index.
 */

/** the distributions Packyard publishes under every DEB distro when the repository's codename is not one of the list */
const DEB_DISTROS = ['ubuntu', 'debian', 'elementaryos', 'kali'] as const;

export interface PublishedRepository {
  id: string;
  kind: RepositoryKind;
  workspaceId: string;
  workspaceSlug: string;
  ownerId: string;
  name: string;
  codename: string;
  component: string;
}

/**
 * The indices a repository always publishes, empty ones signed too, so `apt update` and
 * `dnf makecache` work before the first upload with every choice the console offers:
 * every concrete distribution of the kind's upload list (which includes the install tab's
 * noble, jammy, focal, bookworm and bullseye) and, for DEB, the repository's own codename
 * under each distro when it is not one of them (its `any-version` packages show there).
 */
export function publicationTargets(repository: Pick<PublishedRepository, 'kind' | 'codename'>): Distribution[] {
  const targets = concreteDistributions(repository.kind);
  if (repository.kind === 'DEB' && repository.codename && !targets.some((target) => target.version === repository.codename)) {
    for (const distro of DEB_DISTROS) targets.push({ distro, version: repository.codename });
  }
  for (const { distro, codename } of INSTALL_CODENAMES) {
    if (repository.kind === 'DEB' && !targets.some((target) => target.distro === distro && target.version === codename)) targets.push({ distro, version: codename });
  }
  return targets;
}

/** the targets whose index shows a package uploaded for `upload` */
export const targetsShowing = (repository: Pick<PublishedRepository, 'kind' | 'codename'>, upload: Distribution): Distribution[] =>
  publicationTargets(repository).filter((target) => isVisibleIn(upload, target));

/**
 * The packages visible in a target. A repository's packages name a few upload distributions:
 * each is parsed and checked once per target, and a target that shows all of them (a
 * repository uploading to one distribution) is handed the package set as it is; filtering
 * 100,000 packages for each target of a build took 18 ms apiece.
 */
export function packagesShownIn<T extends { distribution: string }>(packages: readonly T[]): (target: Distribution) => readonly T[] {
  const named = new Set<string>();
  for (const pkg of packages) named.add(pkg.distribution);
  const uploads = [...named].map((text) => ({ text, upload: parseDistribution(text) }));
  return (target) => {
    const shown = new Set(uploads.filter(({ upload }) => isVisibleIn(upload, target)).map(({ text }) => text));
    if (shown.size === named.size) return packages;
    return shown.size === 0 ? [] : packages.filter((pkg) => shown.has(pkg.distribution));
  };
}

/** DEB components: the repository's own (where its packages are) and every one the install tab offers (empty) */
export const debComponents = (component: string): string[] => [...new Set([component, ...INSTALL_COMPONENTS])];

/**
 * Where an RPM distribution's source packages are published: a repository of their own (the
 * `[<name>-source]` section of the .repo file, enabled=0), not arch `src` entries in the
 * binary repodata, so machines that only install never download source metadata and
 * `dnf download --source` finds them the way it finds Fedora's and EL's `-source` repositories.
 */
export const RPM_SOURCE_DIR = 'SRPMS';
/** rpm names a source package's architecture `src` (PackageUploaded's architecture) */
export const isSourcePackage = (pkg: { architecture: string }) => pkg.architecture === 'src';

/** Debian's pool fan-out: `lib` packages by their first four letters, others by the first */
const poolLetter = (name: string) => (name.startsWith('lib') && name.length > 3 ? name.slice(0, 4) : name.slice(0, 1));

export function poolPath(kind: RepositoryKind, component: string, pkg: { name: string; filename: string; distribution: string }): string {
  const upload = parseDistribution(pkg.distribution);
  return kind === 'DEB'
    ? `pool/${component}/${poolLetter(pkg.name)}/${pkg.name}/${upload.distro}/${upload.version}/${pkg.filename}`
    : `Packages/${upload.distro}/${upload.version}/${pkg.name.slice(0, 1).toLowerCase()}/${pkg.filename}`;
}

const CONTENT_TYPES: [RegExp, string][] = [
  [/\.[ud]?deb$/, 'application/vnd.debian.binary-package'],
  [/\.rpm$/, 'application/x-rpm'],
  [/\.gz$/, 'application/gzip'],
  [/\.xz$/, 'application/x-xz'],
  [/\.xml$/, 'application/xml'],
  [/(\.gpg|\.asc)$/, 'application/pgp-signature'],
  [/\.key$/, 'application/pgp-keys'],
];

export const contentTypeOf = (path: string): string => CONTENT_TYPES.find(([pattern]) => pattern.test(path))?.[1] ?? 'text/plain; charset=utf-8';
