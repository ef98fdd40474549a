import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isArtifactFormatError, parseDsc } from '@packyard/formats';
import { DEFAULT_WAIT_SECONDS, WAIT_OPTIONS, waitTimeoutMs, waitUntilInstallable } from '../edge-wait';
import { ClientError, EXIT, type ExitCode } from '../exit-codes';
import { fileProgress } from '../progress';
import { usageError, type ClientCommand } from '../command';
import type { Package } from '../api-client';

export const pushCommand: ClientCommand = {
  name: 'push',
  summary: 'upload packages; --wait returns once apt/dnf can install them',
  options: WAIT_OPTIONS,
  help: `Usage: packyard push <workspace>/<repository> <distro>/<version> FILE... [--wait] [--timeout SECONDS]

Uploads each .deb, .udeb, .ddeb (DEB repository) or .rpm (RPM repository) for the
distribution, e.g. debian/bookworm, ubuntu/any-version, el/9 or any-distro/any-version. A
Debian source package is its .dsc: the files it lists are read from the .dsc's folder and
go up with it in one upload (naming them as well does no harm). A terminal shows a
progress bar per upload; otherwise one line per step goes to stderr.

  --wait             return only when every file is installable: the edge serves the
                     signed index (InRelease → Packages, repomd.xml → primary) listing it
                     in every distribution it was published to
  --timeout SECONDS  how long --wait waits (default ${DEFAULT_WAIT_SECONDS}); exit 5 when it runs out

Every file is tried; the exit code is the first failure's (4 for a version already there).
With --json, stdout gets [{"file", "package", "installable"} | {"file", "error", "exitCode"}].`,
  async run({ io, values, positionals, api, print }) {
    const [ref, distribution, ...files] = positionals;
    if (!ref || !distribution || !files.length) throw usageError('push', 'push needs <workspace>/<repository>, <distro>/<version> and at least one file');
    const timeoutMs = waitTimeoutMs(values, 'push');
    const client = await api();
    const target = await client.repository(ref);
    const wait = values.wait === true;
    const repositoryUrl = wait ? (await client.call<{ repositoryUrl: string }>('GET', `/repos/${target.repository.id}/snippets`)).repositoryUrl : '';

    const results: ({ file: string; package: Package; installable: boolean } | { file: string; error: string; exitCode: ExitCode })[] = [];
    for (const { file, parts } of await uploadsOf(files)) {
      const progress = fileProgress(io.stderr, basename(file));
      try {
        const uploaded = await client.upload(target, parts, distribution, (sent, total) => progress.update(sent, total));
        if (wait) {
          progress.update(1, 1);
          await waitUntilInstallable(uploaded.package, { repositoryUrl, repository: target.repository, token: client.token, timeoutMs });
        }
        progress.done(wait ? `installable (${uploaded.package.name} ${uploaded.package.version}, ${uploaded.package.distribution})` : uploaded.published ? 'published' : 'accepted; publishing');
        results.push({ file, package: uploaded.package, installable: wait });
      } catch (error) {
        if (!(error instanceof ClientError)) throw error;
        progress.done(`failed: ${error.message}`);
        results.push({ file, error: error.message, exitCode: error.exitCode });
      }
    }
    print(results, '');
    return results.find((result) => 'exitCode' in result)?.exitCode ?? EXIT.ok;
  },
};

/**
 * One upload per package: a .dsc with the files it lists (from its own folder), every other
 * file alone. A file some .dsc lists is not uploaded again by itself; a .dsc that does not
 * parse goes up alone, for the server to say what is wrong with it.
 */
async function uploadsOf(files: string[]): Promise<{ file: string; parts: string[] }[]> {
  const uploads: { file: string; parts: string[] }[] = [];
  const listed = new Set<string>();
  for (const file of files) {
    if (!file.toLowerCase().endsWith('.dsc')) continue;
    let parts = [file];
    try {
      const dsc = parseDsc(await readFile(file));
      parts = [file, ...dsc.files.map((listedFile) => join(dirname(file), listedFile.name))];
    } catch (error) {
      if (!isArtifactFormatError(error) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const part of parts.slice(1)) listed.add(resolve(part));
    uploads.push({ file, parts });
  }
  for (const file of files) if (!file.toLowerCase().endsWith('.dsc') && !listed.has(resolve(file))) uploads.push({ file, parts: [file] });
  // in the order given
  return uploads.sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file));
}
