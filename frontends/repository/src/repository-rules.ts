import { ANY_DISTRO, INSTALL_CODENAMES as SERVER_INSTALL_CODENAMES, INSTALL_COMPONENTS } from '@packyard/formats/distributions';
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
export { DEB_UPLOAD_DISTRIBUTIONS, RPM_UPLOAD_DISTRIBUTIONS, uploadDistributions } from '@packyard/formats/distributions';

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_UPLOAD_LABEL = '100 MB';

export const DISTRIBUTION_REQUIRED_ALERT = 'Distribution selection is required! Please select a distribution before uploading.';
export const DISTRIBUTION_REQUIRED_ERROR = 'Distribution is required for upload';
export const UPLOAD_FAILED = 'Upload failed';

export const packageExtension = (kind: RepositoryKind) => (kind === 'DEB' ? '.deb' : '.rpm');

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

export const SECURITY_NOTES = [
  'All packages in this repository are signed with its GPG key.',
  'The public key is served over HTTPS.',
  'Package managers verify signatures automatically once the key is installed.',
  'Installation is blocked when a signature fails verification.',
] as const;

// --- Install ----------------------------------------------------------------------------

export const INSTALL_CODENAMES = SERVER_INSTALL_CODENAMES.map(({ codename, label }) => ({ value: codename, label: `${codename} (${label})` }));

export { INSTALL_COMPONENTS };

/** The repository's own codename when it is one of the choices, else noble (§9). */
export function defaultInstallCodename(repository: Pick<Repository, 'codename'>): string {
  return INSTALL_CODENAMES.some((choice) => choice.value === repository.codename) ? repository.codename! : 'noble';
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

/** The Download button's target: the install script itself, as the one-liner fetches it. */
export function installScriptPath(repository: Pick<Repository, 'id' | 'kind'>, choice?: { codename: string; component: string }): string {
  const kind = repository.kind === 'DEB' ? 'deb' : 'rpm';
  const query = new URLSearchParams({ repo: repository.id, ...(choice && kind === 'deb' ? choice : {}) });
  return `/api/install-${kind}.sh?${query}`;
}

/** The example that follows the installation: refresh the lists, then install a package. */
export function exampleInstallCommand(kind: RepositoryKind, packageName = '<package-name>'): string {
  return kind === 'DEB' ? `sudo apt-get update && sudo apt-get install -y ${packageName}` : `sudo dnf makecache && sudo dnf install -y ${packageName}`;
}

// --- Settings: retention ---------------------------------------------------------------

export const MAX_KEEP_VERSIONS = 1000;
export const MAX_KEEP_DOWNLOADED_DAYS = 3650;

/** The form's text as a whole number in range, or the message the field shows. */
export function wholeNumberInRange(text: string, max: number, what: string): number | string {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > max) return `${what} must be a whole number from 0 to ${max}`;
  return Number(trimmed);
}
