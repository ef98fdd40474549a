import { concreteDistributions, DEFAULT_INSTALL_CODENAME, DEFAULT_INSTALL_COMPONENT, distroForCodename } from '@packyard/formats';
import { invalid } from '@packyard/platform';
import type { Snippets } from '@packyard/proto/packyard/delivery/v1/delivery';
import { repositoryFileStem, shellQuote, type InstallScriptKind } from '../install-scripts/install-script';
import { repositoryPath, type RepositoryRecord, type StockedDistribution } from '../catalog/served-file';
import { ARMORED_KEY_FILE, KEYRING_FILE } from '../keys/public-keys';

// The texts of the Overview, Keys and Install tabs (spec §2, §7). Every command here must
// work verbatim with the real client, so each is built from the same URL layout the
// edge serves and checked by the client tests.

/** what the console replaces with the chosen token (spec: "a placeholder token argument") */
export const TOKEN_PLACEHOLDER = 'YOUR_TOKEN';

/** the origin apt/dnf reach Packyard at: PUBLIC_URL, else what the request came in on */
export function resolveOrigin(publicUrl: string | undefined, requestOrigin: string): string {
  const origin = (publicUrl || requestOrigin).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw invalid('PACKYARD_DELIVERY_INVALID_ORIGIN', `Cannot build install instructions for origin ${JSON.stringify(origin)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.username) {
    throw invalid('PACKYARD_DELIVERY_INVALID_ORIGIN', `Cannot build install instructions for origin ${JSON.stringify(origin)}`);
  }
  return url.origin;
}

export const repositoryUrl = (origin: string, repository: RepositoryRecord) => `${origin}${repositoryPath(repository)}`;

const APT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const TOKEN_CHARACTERS = /^[A-Za-z0-9._~+/=-]+$/;

export interface AptChoice {
  distro: string;
  codename: string;
  component: string;
}

const DEB_DISTROS = new Set(concreteDistributions('DEB').map((distribution) => distribution.distro));

/**
 * The apt suite and component the instructions use: the ones asked for, else where the
 * packages are (the repository's own codename first: `stocked` comes ordered so), else,
 * before the first upload, the repository's own codename when a distro publishes it, else
 * noble/main (§9). `distro` is only needed for a suite several distros publish (a
 * repository's own codename such as `stable` is published under each of them).
 */
export function aptChoice(repository: RepositoryRecord, stocked: readonly StockedDistribution[], asked: { distro?: string; codename?: string; component?: string } = {}): AptChoice {
  const component = aptComponent(repository, asked.component);
  if (asked.codename) {
    const distro = asked.distro || distroForCodename(asked.codename) || stocked.find((entry) => entry.version === asked.codename)?.distro;
    if (!distro || !APT_NAME.test(asked.codename)) throw invalid('PACKYARD_DELIVERY_UNKNOWN_CODENAME', `Unknown codename ${JSON.stringify(asked.codename)}`, { codename: asked.codename });
    if (!DEB_DISTROS.has(distro)) throw invalid('PACKYARD_DELIVERY_UNKNOWN_DISTRO', `Unknown distro ${JSON.stringify(distro)}`, { distro });
    return { distro, codename: asked.codename, component };
  }
  if (stocked[0]) return { distro: stocked[0].distro, codename: stocked[0].version, component };
  const own = repository.codename ? distroForCodename(repository.codename) : undefined;
  const chosen = own ? repository.codename : DEFAULT_INSTALL_CODENAME;
  return { distro: own ?? distroForCodename(chosen)!, codename: chosen, component };
}

function aptComponent(repository: RepositoryRecord, component?: string): string {
  const chosen = component || repository.component || DEFAULT_INSTALL_COMPONENT;
  if (!APT_NAME.test(chosen)) throw invalid('PACKYARD_DELIVERY_INVALID_COMPONENT', `Invalid component ${JSON.stringify(chosen)}`, { component: chosen });
  return chosen;
}

/** `{origin}/api/install-deb.sh?repo=…[&distro=…][&codename=…&component=…]`; the distro only when the codename does not name it */
export function installScriptUrl(origin: string, repository: RepositoryRecord, choice?: AptChoice): string {
  const kind: InstallScriptKind = repository.kind === 'DEB' ? 'deb' : 'rpm';
  const query = new URLSearchParams({ repo: repository.id });
  if (choice && kind === 'deb') {
    if (distroForCodename(choice.codename) !== choice.distro) query.set('distro', choice.distro);
    query.set('codename', choice.codename);
    query.set('component', choice.component);
  }
  return `${origin}/api/install-${kind}.sh?${query}`;
}

export interface SnippetRequest {
  origin: string;
  repository: RepositoryRecord;
  /** the distributions whose index holds packages, ordered (PublishedCatalog.stocked) */
  stocked?: readonly StockedDistribution[];
  distro?: string;
  codename?: string;
  component?: string;
  token?: string;
}

/** the snippets response of spec §3/§7 plus repositoryUrl and publicKeyUrl (DESIGN §5) */
export function installSnippets(request: SnippetRequest): Snippets {
  const { origin, repository } = request;
  if (request.token && !TOKEN_CHARACTERS.test(request.token)) throw invalid('PACKYARD_DELIVERY_INVALID_TOKEN', 'The token contains characters a Packyard token never has');
  const token = request.token || TOKEN_PLACEHOLDER;
  const baseUrl = repositoryUrl(origin, repository);
  const publicKeyUrl = `${baseUrl}/${ARMORED_KEY_FILE}`;
  const stem = repositoryFileStem(repository.name);
  const script = `install-${repository.kind === 'DEB' ? 'deb' : 'rpm'}.sh`;
  const stocked = request.stocked ?? [];
  const choice = repository.kind === 'DEB' ? aptChoice(repository, stocked, request) : undefined;
  const scriptUrl = installScriptUrl(origin, repository, choice);
  return {
    distributions: stocked.map(({ distro, version, packageCount }) => ({ distro, version, packageCount })),
    distro: choice?.distro ?? '',
    codename: choice?.codename ?? '',
    component: choice?.component ?? '',
    apt: choice ? aptText(baseUrl, stem, token, choice) : '',
    yum: choice ? '' : yumText(baseUrl, publicKeyUrl, stem, repository.name, token),
    publicKeyUrl,
    repositoryUrl: baseUrl,
    setupCommands: {
      oneLiner: `curl -fsSL ${shellQuote(scriptUrl)} | sudo bash -s -- ${token}`,
      downloadScript: `curl -fsSL -o ${script} ${shellQuote(scriptUrl)}`,
      makeExecutable: `chmod +x ${script}`,
      runInstaller: `sudo ./${script} ${token}`,
    },
  };
}

/** the key as a keyring file named after the repository, where signed-by= points */
const aptKeyCommand = (baseUrl: string, stem: string) =>
  `sudo install -d -m 0755 /etc/apt/keyrings && curl -fsSL ${shellQuote(`${baseUrl}/${KEYRING_FILE}`)} | sudo tee /etc/apt/keyrings/${stem}.gpg >/dev/null`;

function aptText(baseUrl: string, stem: string, token: string, choice: AptChoice): string {
  const location = baseUrl.replace(/^[a-z]+:\/\//, '');
  // apt 2.6 matches an http source only with the scheme in `machine`; older apt only without.
  // No `password`: the token goes with an empty one, and apt's auth.conf reader (netrc.cc,
  // tokens split on blanks and newlines) would take the next word, `machine`, as its value.
  const machines = baseUrl.startsWith('http://') ? [baseUrl, location] : [location];
  const auth = machines.map((machine) => `machine ${machine} login ${token}`).join('\\n');
  return [
    aptKeyCommand(baseUrl, stem),
    `printf '${auth}\\n' | sudo tee /etc/apt/auth.conf.d/${stem}.conf >/dev/null && sudo chmod 600 /etc/apt/auth.conf.d/${stem}.conf`,
    // deb-src too: `apt-get source` fetches the repository's source packages (Sources is published in every component)
    `printf '%s\\n' ${['deb', 'deb-src'].map((type) => `'${type} [signed-by=/etc/apt/keyrings/${stem}.gpg] ${baseUrl}/${choice.distro} ${choice.codename} ${choice.component}'`).join(' ')} | sudo tee /etc/apt/sources.list.d/${stem}.list >/dev/null`,
    'sudo apt-get update',
  ].join('\n');
}

function yumText(baseUrl: string, publicKeyUrl: string, stem: string, name: string, token: string): string {
  const section = (id: string, title: string, url: string, enabled: 0 | 1) => [
    `[${id}]`,
    `name=${title.replace(/[\r\n]/g, ' ')}`,
    `baseurl=${url}`,
    `enabled=${enabled}`,
    'repo_gpgcheck=1',
    'gpgcheck=1',
    `gpgkey=${publicKeyUrl}`,
    `username=${token}`,
    'password=',
    'skip_if_unavailable=False',
  ];
  // $releasever stays literal (quoted heredoc): dnf fills in the machine's EL version. The
  // source packages' repository is off until asked for (dnf download --source enables it).
  return [
    `sudo tee /etc/yum.repos.d/${stem}.repo >/dev/null <<'EOF'`,
    ...section(stem, name, `${baseUrl}/el/$releasever`, 1),
    '',
    ...section(`${stem}-source`, `${name} (source packages)`, `${baseUrl}/el/$releasever/SRPMS`, 0),
    'EOF',
    'sudo chmod 600 /etc/yum.repos.d/' + stem + '.repo',
    `sudo dnf makecache --repo ${stem}`,
  ].join('\n');
}
