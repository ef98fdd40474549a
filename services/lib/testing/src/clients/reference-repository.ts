import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildDeb } from '../packages/deb.builder';
import { buildRpm } from '../packages/rpm.builder';
import { runChecked, runCommand } from './run-command';

// A stand-in for Packyard's delivery edge built only from Debian's own tools (reprepro,
// createrepo_c, gpg), so the client harness and the install scripts are proven against
// repositories nobody here wrote. It speaks the same URLs and auth as DESIGN.md §4:
//   /deb/{workspace}/{repo}/debian/dists/bookworm/...   APT (reprepro, InRelease + Release.gpg)
//   /rpm/{workspace}/{repo}/{distro}/{version}/repodata/...  RPM (createrepo_c, repomd.xml.asc)
//   /keys/{workspace}/{repo}.asc | .gpg                 public key, armored | binary keyring
// /deb and /rpm need HTTP Basic with the token as user and an empty password, or the token
// again as password (zypper sends no credentials at all while the password is empty);
// anything else is a bare 401 with WWW-Authenticate (never a page: apt would read it as a
// broken InRelease).

export interface TestPackage {
  name: string;
  version: string;
}

export interface ReferenceRepositoryOptions {
  workspace: string;
  repository: string;
  token: string;
  packages: TestPackage[];
  /** RPM distribution/version directories to publish the packages in; default el/9. */
  rpmDistributions?: string[];
}

export interface ReferenceRepository {
  origin: string;
  /** `{origin}/deb/{workspace}/{repo}` */
  debRepositoryUrl: string;
  /** `{origin}/rpm/{workspace}/{repo}` */
  rpmRepositoryUrl: string;
  publicKeyUrl: string;
  keyringUrl: string;
  /** Local directory served at the origin's root; tests may tamper with files in it. */
  servedDir: string;
  /** Serves `body` publicly at `path` (e.g. a rendered install script). */
  servePublic(path: string, body: (query: URLSearchParams) => string): void;
  close(): Promise<void>;
}

const gpgIdentity = 'Packyard reference repository <reference@packyard.invalid>';

function requestedFile(servedDir: string, pathname: string): string | undefined {
  const decoded = decodeURIComponent(pathname);
  const relative = normalize(decoded).replace(/^\/+/, '');
  return relative.startsWith('..') || decoded.includes('\0') ? undefined : join(servedDir, relative);
}

function basicAuthUser(request: IncomingMessage): { user: string; password: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Builds both repositories in `workDir/served`, signed by a throwaway key in `gnupgHome`. */
async function buildRepositories(options: ReferenceRepositoryOptions, workDir: string, servedDir: string, gnupgHome: string): Promise<void> {
  const gpgEnv = { ...process.env, GNUPGHOME: gnupgHome };
  const gpg = (args: string[]) => runChecked('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env: gpgEnv });

  await gpg(['--quick-gen-key', gpgIdentity, 'rsa3072', 'sign', 'never']);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec((await gpg(['--with-colons', '--list-secret-keys'])).stdout)![1];
  const keysDir = join(servedDir, 'keys', options.workspace);
  await mkdir(keysDir, { recursive: true });
  await writeFile(join(keysDir, `${options.repository}.asc`), (await gpg(['--armor', '--export', fingerprint])).stdout);
  await gpg(['--output', join(keysDir, `${options.repository}.gpg`), '--export', fingerprint]);

  // APT: reprepro keeps its database outside the served tree and writes dists/ + pool/;
  // with `source` among the architectures it publishes a (here empty) Sources for deb-src lines.
  const reprepro = join(workDir, 'reprepro');
  await mkdir(join(reprepro, 'conf'), { recursive: true });
  await writeFile(
    join(reprepro, 'conf/distributions'),
    `Origin: reference\nLabel: reference\nCodename: bookworm\nArchitectures: amd64 source\nComponents: main\nSignWith: ${fingerprint}\n`,
  );
  const debOutDir = join(servedDir, 'deb', options.workspace, options.repository, 'debian');
  for (const pkg of options.packages) {
    const deb = await buildDeb({ name: pkg.name, version: pkg.version, arch: 'all' }, join(workDir, 'debs'));
    await runChecked('reprepro', ['--basedir', reprepro, '--outdir', debOutDir, 'includedeb', 'bookworm', deb], { env: gpgEnv });
  }

  // RPM: signed packages, createrepo_c metadata, then an armored detached signature over repomd.xml.
  const rpms: string[] = [];
  for (const pkg of options.packages) rpms.push(await buildRpm({ name: pkg.name, version: pkg.version, release: '1', arch: 'noarch' }, join(workDir, 'rpms')));
  // signed as rpmsign does, so clients run with gpgcheck=1 as they do against Packyard
  if (rpms.length) await runChecked('rpmsign', ['--define', `_gpg_name ${fingerprint}`, '--define', '__gpg /usr/bin/gpg', '--addsign', ...rpms], { env: gpgEnv });
  for (const distribution of options.rpmDistributions ?? ['el/9']) {
    const rpmDir = join(servedDir, 'rpm', options.workspace, options.repository, distribution);
    await mkdir(rpmDir, { recursive: true });
    for (const rpm of rpms) await copyFile(rpm, join(rpmDir, basename(rpm)));
    await runChecked('createrepo_c', ['--quiet', rpmDir]);
    await gpg(['--local-user', fingerprint, '--armor', '--detach-sign', join(rpmDir, 'repodata/repomd.xml')]);
  }
}

export async function startReferenceRepository(options: ReferenceRepositoryOptions): Promise<ReferenceRepository> {
  const workDir = await mkdtemp(join(tmpdir(), 'packyard-reference-'));
  const servedDir = join(workDir, 'served');
  const gnupgHome = join(workDir, 'gnupg');
  await mkdir(gnupgHome, { mode: 0o700 });
  const removeWorkDir = async () => {
    // gpg leaves an agent running per GNUPGHOME; stop it before its directory goes.
    await runCommand('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupgHome } });
    await rm(workDir, { recursive: true, force: true });
  };
  try {
    await buildRepositories(options, workDir, servedDir, gnupgHome);
  } catch (error) {
    await removeWorkDir();
    throw error;
  }

  const publicRoutes = new Map<string, (query: URLSearchParams) => string>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://reference');
      const publicRoute = publicRoutes.get(url.pathname);
      if (publicRoute) {
        response.writeHead(200, { 'Content-Type': 'text/x-shellscript' }).end(publicRoute(url.searchParams));
        return;
      }
      if (/^\/(deb|rpm)\//.test(url.pathname)) {
        const credentials = basicAuthUser(request);
        if (credentials?.user !== options.token || (credentials.password !== '' && credentials.password !== options.token)) {
          response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Packyard"', 'Content-Length': 0 }).end();
          return;
        }
      }
      const file = requestedFile(servedDir, url.pathname);
      const body = file ? await readFile(file).catch(() => undefined) : undefined;
      if (!body) {
        response.writeHead(404, { 'Content-Length': 0 }).end();
        return;
      }
      response.writeHead(200, { 'Content-Length': body.length });
      response.end(request.method === 'HEAD' ? undefined : body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    debRepositoryUrl: `${origin}/deb/${options.workspace}/${options.repository}`,
    rpmRepositoryUrl: `${origin}/rpm/${options.workspace}/${options.repository}`,
    publicKeyUrl: `${origin}/keys/${options.workspace}/${options.repository}.asc`,
    keyringUrl: `${origin}/keys/${options.workspace}/${options.repository}.gpg`,
    servedDir,
    servePublic: (path, body) => publicRoutes.set(path, body),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await removeWorkDir();
    },
  };
}
