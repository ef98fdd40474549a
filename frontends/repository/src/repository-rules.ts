import { ANY_DISTRO, distroForCodename, INSTALL_CODENAMES as SERVER_INSTALL_CODENAMES, INSTALL_COMPONENTS, isVisibleIn, uploadDistributions } from '@packyard/formats/distributions';
import type { Repository, RepositoryKind } from '@packyard/console-kit';

// The repository page's constants, texts and rules (console spec §2, §4, §5, §9), as
// plain functions so they are specified without a browser.

export const REPOSITORY_TABS = [
  { id: 'overview', label: 'Overview', icon: 'dashboard' },
  { id: 'install', label: 'Install', icon: 'download' },
  { id: 'packages', label: 'Packages', icon: 'package' },
  { id: 'upload', label: 'Upload', icon: 'upload' },
  { id: 'keys', label: 'Keys', icon: 'key' },
  { id: 'settings', label: 'Settings', icon: 'settings' },
] as const;

export type RepositoryTab = (typeof REPOSITORY_TABS)[number]['id'];

/** The tab named by the path after `/repos/{id}/`; anything else is the first tab, Overview. */
export function tabFromPath(rest: string | undefined): RepositoryTab {
  const segment = (rest ?? '').split('/')[0];
  return REPOSITORY_TABS.find((tab) => tab.id === segment)?.id ?? 'overview';
}

/** `packages/{packageId}`: one package's page, under the Packages tab */
export function packageIdFromPath(rest: string | undefined): string | undefined {
  const [segment, packageId, ...more] = (rest ?? '').split('/');
  return segment === 'packages' && packageId && more.length === 0 ? decodeURIComponent(packageId) : undefined;
}

export const packageDetailPath = (workspaceId: string, repositoryId: string, packageId: string) => `/workspaces/${workspaceId}/repos/${repositoryId}/packages/${encodeURIComponent(packageId)}`;

/** The browsable view of what a repository publishes ("View Public Repository"), beside the tabs. */
export const BROWSE_SEGMENT = 'browse';
export const isBrowsePath = (rest: string | undefined) => (rest ?? '').split('/')[0] === BROWSE_SEGMENT;

/** Where a client starts reading a distribution: InRelease (apt) or repodata/repomd.xml (dnf). */
export function distributionEntryPoint(repositoryUrl: string, kind: RepositoryKind, distro: string, version: string): string {
  const base = repositoryUrl.replace(/\/+$/, '');
  return kind === 'DEB' ? `${base}/${distro}/dists/${version}/InRelease` : `${base}/${distro}/${version}/repodata/repomd.xml`;
}

/** The packages an index shows: its own uploads, its distro's any-version ones and any-distro ones (DESIGN §4). */
export function packagesIn<T extends { distribution?: string }>(packages: readonly T[], distro: string, version: string): T[] {
  return packages.filter((pkg) => {
    const [uploadDistro, uploadVersion] = (pkg.distribution ?? '').split('/');
    return isVisibleIn({ distro: uploadDistro, version: uploadVersion }, { distro, version });
  });
}

export const NOT_SET = 'Not set';
export const displayValue = (value: string | null | undefined) => (value && value.trim() ? value : NOT_SET);

// --- Packages ---------------------------------------------------------------------------

export const PACKAGE_PAGE_SIZE = 20;

export function packageDeleteConfirmation(name: string, version: string): string {
  return `Are you sure you want to delete "${name} ${version}"? This action cannot be undone.`;
}

/** "Page 2 of 3": pages are shown 1-based; the API takes them 0-based. */
export function pageCount(total: number, size = PACKAGE_PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / size));
}

export interface PackageFileRef {
  name: string;
  filename: string;
  /** the upload distribution, `distro/version` */
  distribution?: string;
}

/**
 * Where the edge serves a package file (DESIGN §4, the repository module's pool layout):
 * DEB under the distribution root `{repositoryUrl}/{distro}`, RPM under
 * `{repositoryUrl}/{distro}/{version}`. A package uploaded for `any-distro/any-version`
 * is published everywhere; the first listed distribution is used.
 */
export function packageFileUrl(repositoryUrl: string, repository: Pick<Repository, 'kind' | 'component'>, pkg: PackageFileRef): string | undefined {
  if (!pkg.distribution) return undefined;
  const [distro, version] = pkg.distribution.split('/');
  if (!distro || !version) return undefined;
  const base = repositoryUrl.replace(/\/+$/, '');
  const file = encodeURIComponent(pkg.filename);
  if (repository.kind === 'DEB') {
    const letter = pkg.name.startsWith('lib') && pkg.name.length > 3 ? pkg.name.slice(0, 4) : pkg.name.slice(0, 1);
    const root = distro === ANY_DISTRO ? 'ubuntu' : distro;
    return `${base}/${root}/pool/${repository.component || 'main'}/${letter}/${pkg.name}/${distro}/${version}/${file}`;
  }
  const root = distro === ANY_DISTRO ? 'el/9' : `${distro}/${version}`;
  return `${base}/${root}/Packages/${distro}/${version}/${pkg.name.slice(0, 1).toLowerCase()}/${file}`;
}

/** HTTP Basic as the edge expects it: the token is the user name, the password is empty. */
export const basicAuthorization = (token: string) => `Basic ${btoa(`${token}:`)}`;

export const DOWNLOAD_NEEDS_TOKEN = 'Create a repository token on the Install tab to download packages.';

// --- Upload -----------------------------------------------------------------------------

export const DISTRIBUTION_PROMPT = '-- Select Distribution (Required) --';

// The distribution lists and install choices have one home, shared with the server (spec §9).
export { DEB_UPLOAD_DISTRIBUTIONS, RPM_UPLOAD_DISTRIBUTIONS } from '@packyard/formats/distributions';
export { uploadDistributions };

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_UPLOAD_LABEL = '100 MB';

export const DISTRIBUTION_REQUIRED_ALERT = 'Distribution selection is required! Please select a distribution before uploading.';
export const DISTRIBUTION_REQUIRED_ERROR = 'Distribution is required for upload';
export const UPLOAD_FAILED = 'Upload failed';

export const packageExtension = (kind: RepositoryKind) => (kind === 'DEB' ? '.deb' : '.rpm');

/**
 * The upload a CI job runs: an account access token with the publish scope (Access Tokens
 * page) in PACKYARD_TOKEN, the distribution field before the file (the server reads the
 * form in order and needs it first), and ?wait=published so the job ends once apt and dnf
 * can see the package.
 */
export function ciUploadCommand(origin: string, workspaceId: string, repository: Pick<Repository, 'id' | 'kind'>, distribution: string): string {
  const file = repository.kind === 'DEB' ? './my-package_1.0_amd64.deb' : './my-package-1.0-1.x86_64.rpm';
  const url = `${origin.replace(/\/+$/, '')}/api/v1/workspaces/${encodeURIComponent(workspaceId)}/repos/${encodeURIComponent(repository.id)}/upload?wait=published`;
  return [
    'curl -fsS -H "Authorization: Bearer $PACKYARD_TOKEN" \\',
    `  -F distribution=${distribution || uploadDistributions(repository.kind)[0]} \\`,
    `  -F file=@${file} \\`,
    `  ${shellQuote(url)}`,
  ].join('\n');
}

/** Spec §5: the extension of the repository's kind (any case), at most 100 MB. */
export function validateUploadFile(file: { name: string; size: number }, kind: RepositoryKind): string | undefined {
  const extension = packageExtension(kind);
  if (!file.name.toLowerCase().endsWith(extension)) return `File must be a ${extension} package`;
  if (file.size > MAX_UPLOAD_BYTES) return `File must be smaller than ${MAX_UPLOAD_LABEL}`;
  return undefined;
}

export type UploadStatus = 'pending' | 'uploading' | 'completed' | 'error';

export interface UploadItem {
  id: string;
  file: File;
  distribution: string;
  status: UploadStatus;
  progress: number;
  error?: string;
}

export function uploadStatusText(item: Pick<UploadItem, 'status' | 'progress' | 'error'>): string {
  switch (item.status) {
    case 'pending':
      return 'Ready to upload';
    case 'uploading':
      return `Uploading... ${item.progress}%`;
    case 'completed':
      return 'Upload complete';
    case 'error':
      return item.error || UPLOAD_FAILED;
  }
}

let nextItem = 0;

/** A queue row for a chosen file: it starts in error when it fails the client checks. */
export function queueItem(file: File, distribution: string, kind: RepositoryKind): UploadItem {
  const error = validateUploadFile(file, kind);
  nextItem += 1;
  return { id: `upload-${nextItem}`, file, distribution, status: error ? 'error' : 'pending', progress: 0, error };
}

/** Only pending items with a distribution can start (spec §4, §5). */
export const canStartUpload = (item: Pick<UploadItem, 'status' | 'distribution'>) => item.status === 'pending' && item.distribution !== '';

// --- Keys -------------------------------------------------------------------------------

/** The same file name stem the delivery module gives a client's files (keyring, sources list, .repo). */
export function repositoryFileStem(repositoryName: string): string {
  const stem = repositoryName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return stem || 'packyard';
}

export const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** DEB: the binary keyring (served beside the armored key) into /etc/apt/keyrings/<repo>.gpg. */
export function debKeyCommand(repositoryUrl: string, repositoryName: string): string {
  const keyring = `${repositoryUrl.replace(/\/+$/, '')}/keyring.gpg`;
  return `sudo install -d -m 0755 /etc/apt/keyrings && curl -fsSL ${shellQuote(keyring)} | sudo tee /etc/apt/keyrings/${repositoryFileStem(repositoryName)}.gpg >/dev/null`;
}

export const rpmKeyCommand = (publicKeyUrl: string) => `sudo rpm --import ${shellQuote(publicKeyUrl)}`;

/** keys ending within this many days are flagged (the server rolls them before they end) */
export const KEY_NEAR_EXPIRY_DAYS = 60;

export function keyNearExpiry(key: { expiresAt: string | null; status: string }, now = Date.now()): boolean {
  return key.status === 'current' && key.expiresAt !== null && Date.parse(key.expiresAt) - now < KEY_NEAR_EXPIRY_DAYS * 86_400_000;
}

export const KEY_STATUS_LABELS = { current: 'Current', previous: 'Previous (still signs)', retired: 'Retired' } as const;

export const KEY_ROLL_CONFIRMATION =
  'Roll the signing key? A new key signs beside the current one for the overlap period, then alone. APT machines must fetch the keyring again before the overlap ends.';

export const SECURITY_NOTES = [
  'All packages in this repository are signed with its GPG key.',
  'The public key is served over HTTPS.',
  'Package managers verify signatures automatically once the key is installed.',
  'Installation is blocked when a signature fails verification.',
] as const;

// --- Install ----------------------------------------------------------------------------

/** A distribution the install instructions can be for: `value` is `distro/codename`. */
export interface DistributionChoice {
  value: string;
  distro: string;
  codename: string;
  label: string;
}

export interface StockedDistribution {
  distro: string;
  version: string;
  packageCount: number;
}

const releaseName = (distro: string, codename: string) =>
  SERVER_INSTALL_CODENAMES.find((choice) => choice.distro === distro && choice.codename === codename)?.label ?? distro;

/**
 * The distributions the Overview and Install tab offer: those whose index holds packages,
 * in the server's order (the repository's own codename first), each with its count; before
 * the first upload the spec's codenames (§9: noble, jammy, focal, bookworm, bullseye).
 */
export function distributionChoices(stocked: readonly StockedDistribution[] | undefined): DistributionChoice[] {
  if (stocked && stocked.length > 0) {
    return stocked.map(({ distro, version, packageCount }) => ({
      value: `${distro}/${version}`,
      distro,
      codename: version,
      label: `${version} (${releaseName(distro, version)}) · ${packageCount} ${packageCount === 1 ? 'package' : 'packages'}`,
    }));
  }
  return SERVER_INSTALL_CODENAMES.map(({ codename, distro, label }) => ({ value: `${distro}/${codename}`, distro, codename, label: `${codename} (${label})` }));
}

/** What the Overview says about a codename that no distribution has (the default, `stable`). */
export function codenameNote(codename: string | null | undefined): string | undefined {
  if (!codename?.trim() || distroForCodename(codename)) return undefined;
  return `"${codename}" is this repository's own suite name, not a distribution: a package goes to the distribution chosen at upload. Packages uploaded for a distro's any-version (or any-distro) are also published as "${codename}" under each distro.`;
}

/** The component choices with the repository's own value first (it is the default). */
export function installComponents(repository: Pick<Repository, 'component'>): string[] {
  const own = repository.component?.trim();
  return own ? [own, ...INSTALL_COMPONENTS.filter((component) => component !== own)] : [...INSTALL_COMPONENTS];
}

export const TOKEN_NAME_PLACEHOLDER = 'e.g. production-server or ci-deployment';
export const NO_TOKENS = 'No tokens created yet.';
export const HIDDEN_TOKEN = 'Hidden for security';

export const canCreateRepoToken = (name: string) => name.trim().length > 0;

/** Spec §9: the first 8 characters followed by an ellipsis. */
export const maskToken = (token: string) => `${token.slice(0, 8)}…`;

/** What the snippets put where the token goes (services/delivery: TOKEN_PLACEHOLDER). */
export const TOKEN_PLACEHOLDER = 'YOUR_TOKEN';

export const withToken = (command: string, token: string) => command.replaceAll(TOKEN_PLACEHOLDER, token);

/** The Download button's target: the install script the commands fetch, as a path on this origin. */
export function installScriptPath(downloadScript: string): string | undefined {
  const quoted = /'(https?:\/\/[^']+)'/.exec(downloadScript)?.[1];
  if (!quoted) return undefined;
  const url = new URL(quoted);
  return `${url.pathname}${url.search}`;
}

/** The example that follows the installation: refresh the lists, then install a package. */
export function exampleInstallCommand(kind: RepositoryKind, packageName = '<package-name>'): string {
  return kind === 'DEB' ? `sudo apt-get update && sudo apt-get install -y ${packageName}` : `sudo dnf makecache && sudo dnf install -y ${packageName}`;
}

/** Installs exactly this version: apt's `name=version`, dnf's `name-[epoch:]version-release`. */
export function packageInstallCommand(kind: RepositoryKind, name: string, version: string): string {
  return kind === 'DEB' ? `sudo apt-get update && sudo apt-get install -y ${name}=${version}` : `sudo dnf makecache && sudo dnf install -y ${name}-${version}`;
}

/** the windows the package page offers for its chart */
export const DOWNLOAD_WINDOWS = [
  { id: '7', label: 'Last 7 days', period: 'day', days: 7 },
  { id: '30', label: 'Last 30 days', period: 'day', days: 30 },
  { id: '90', label: 'Last 90 days', period: 'day', days: 90 },
  { id: '48h', label: 'Last 48 hours', period: 'hour', days: 0 },
] as const;
export type DownloadWindow = (typeof DOWNLOAD_WINDOWS)[number];

export const DOWNLOAD_SPLITS = [
  { id: '', label: 'All downloads' },
  { id: 'version', label: 'By version' },
  { id: 'token', label: 'By token' },
] as const;
export type DownloadSplit = (typeof DOWNLOAD_SPLITS)[number]['id'];

// --- Settings: retention ---------------------------------------------------------------

export const MAX_KEEP_VERSIONS = 1000;
export const MAX_KEEP_DOWNLOADED_DAYS = 3650;

/** The form's text as a whole number in range, or the message the field shows. */
export function wholeNumberInRange(text: string, max: number, what: string): number | string {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > max) return `${what} must be a whole number from 0 to ${max}`;
  return Number(trimmed);
}
