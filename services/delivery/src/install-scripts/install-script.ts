import { readFileSync } from 'node:fs';

// Fills the install-script templates beside this file. Every value lands in a single-quoted
// shell literal on an assignment line, so no value can run a command; values are also
// checked for what would corrupt the files the script writes (newlines in an INI or
// sources line, spaces in a URL), because quoting alone does not protect those.

export type InstallScriptKind = 'deb' | 'rpm';

export interface DebInstallScriptParams {
  repositoryName: string;
  /** `{origin}/deb/{workspaceSlug}/{repoName}` */
  repositoryUrl: string;
  /** The public key as a binary keyring (publicKeyFiles in @packyard/formats). */
  keyringUrl: string;
  /** The distro of the codename; empty or absent with an empty codename. */
  distro?: string;
  /** Empty or absent: the script uses the machine's own codename. */
  codename?: string;
  component: string;
  /** `distro/codename` pairs whose index holds packages (PublishedCatalog.stocked). */
  stocked?: readonly string[];
}

export interface RpmInstallScriptParams {
  repositoryName: string;
  /** `{origin}/rpm/{workspaceSlug}/{repoName}` */
  repositoryUrl: string;
  /** The armored public key, used as gpgkey=. */
  publicKeyUrl: string;
  /** `distro/version` pairs whose index holds packages (PublishedCatalog.stocked). */
  stocked?: readonly string[];
}

const templates: Record<InstallScriptKind, string> = {
  deb: readFileSync(new URL('./install-deb.sh', import.meta.url), 'utf8'),
  rpm: readFileSync(new URL('./install-rpm.sh', import.meta.url), 'utf8'),
};

/** A POSIX shell literal that stands for exactly `value`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The name used for the files a client gets (/etc/apt/keyrings/<stem>.gpg,
 * /etc/yum.repos.d/<stem>.repo, ...) and for the dnf/zypper repository id: the repository
 * name reduced to lower-case letters, digits and single hyphens, so it can never leave its
 * directory. The Keys tab's key command must use the same stem.
 */
export function repositoryFileStem(repositoryName: string): string {
  const stem = repositoryName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return stem || 'packyard';
}

function requirePrintable(field: string, value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new Error(`${field} must not contain control characters`);
  return value;
}

function requireUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${field} is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${field} must be http or https`);
  if (/\s/.test(value) || url.search || url.hash || url.username) throw new Error(`${field} must be a plain URL without spaces, query or credentials`);
  return value.replace(/\/+$/, '');
}

/** apt suites and components: Debian archive names never need more than these characters. */
function requireAptName(field: string, value: string, { allowEmpty }: { allowEmpty: boolean }): string {
  if (value === '' && allowEmpty) return value;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) throw new Error(`${field} is not a valid apt name: ${JSON.stringify(value)}`);
  return value;
}

/** `distro/version` pairs, space-separated for the script's `case " $STOCKED " in *" x "*` test */
function requireDistributions(field: string, values: readonly string[] = []): string {
  for (const value of values) if (!/^[a-z0-9][a-z0-9.+-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) throw new Error(`${field} holds an invalid distribution: ${JSON.stringify(value)}`);
  return values.join(' ');
}

function placeholderValues(kind: InstallScriptKind, params: DebInstallScriptParams | RpmInstallScriptParams): Record<string, string> {
  const common = {
    REPOSITORY_NAME: requirePrintable('repositoryName', params.repositoryName),
    FILE_STEM: repositoryFileStem(params.repositoryName),
    REPOSITORY_URL: requireUrl('repositoryUrl', params.repositoryUrl),
    STOCKED: requireDistributions('stocked', params.stocked),
  };
  if (kind === 'deb') {
    const deb = params as DebInstallScriptParams;
    return {
      ...common,
      KEYRING_URL: requireUrl('keyringUrl', deb.keyringUrl),
      DISTRO: requireAptName('distro', deb.distro ?? '', { allowEmpty: true }),
      CODENAME: requireAptName('codename', deb.codename ?? '', { allowEmpty: true }),
      COMPONENT: requireAptName('component', deb.component, { allowEmpty: false }),
    };
  }
  return { ...common, PUBLIC_KEY_URL: requireUrl('publicKeyUrl', (params as RpmInstallScriptParams).publicKeyUrl) };
}

/** The install script for one repository, ready to serve as `text/x-shellscript`. */
export function renderInstallScript(kind: 'deb', params: DebInstallScriptParams): string;
export function renderInstallScript(kind: 'rpm', params: RpmInstallScriptParams): string;
export function renderInstallScript(kind: InstallScriptKind, params: DebInstallScriptParams | RpmInstallScriptParams): string {
  const values = placeholderValues(kind, params);
  // Only whole `NAME=@NAME@` assignment lines are filled (the header comments name the
  // placeholders too), in one pass, so a value containing "@NAME@" is never substituted again.
  const filled = new Set<string>();
  const script = templates[kind].replace(/^([A-Z_]+)=@\1@$/gm, (_line, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`install-${kind}.sh uses unknown placeholder @${name}@`);
    filled.add(name);
    return `${name}=${shellQuote(value)}`;
  });
  const unfilled = Object.keys(values).filter((name) => !filled.has(name));
  if (unfilled.length > 0) throw new Error(`install-${kind}.sh has no assignment for ${unfilled.join(', ')}`);
  return script;
}
