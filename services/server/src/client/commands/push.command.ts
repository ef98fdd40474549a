import { basename } from 'node:path';
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

Uploads each .deb (DEB repository) or .rpm (RPM repository) for the distribution, e.g.
debian/bookworm, ubuntu/any-version, el/9 or any-distro/any-version. A terminal shows a
progress bar per file; otherwise one line per step goes to stderr.

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
    for (const file of files) {
      const progress = fileProgress(io.stderr, basename(file));
      try {
        const uploaded = await client.upload(target, file, distribution, (sent, total) => progress.update(sent, total));
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
