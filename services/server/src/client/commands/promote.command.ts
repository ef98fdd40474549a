import { DEFAULT_WAIT_SECONDS, WAIT_OPTIONS, waitTimeoutMs, waitUntilInstallable } from '../edge-wait';
import { ClientError, EXIT } from '../exit-codes';
import { usageError, type ClientCommand } from '../command';
import { selectPackages, SELECT_HELP, SELECT_OPTIONS } from '../package-selection';
import type { Package } from '../api-client';

export const promoteCommand: ClientCommand = {
  name: 'promote',
  summary: 'move (or --copy) package versions to another repository of the workspace',
  options: { ...SELECT_OPTIONS, copy: { type: 'boolean', default: false }, 'to-distribution': { type: 'string' }, ...WAIT_OPTIONS },
  help: `Usage: packyard promote <workspace>/<from> <workspace>/<to> <name> <version> [--distribution D] [--arch A] [--copy] [--wait]
       packyard promote <workspace>/<from> <workspace>/<to> --id PACKAGE_ID

Moves the matching packages from one repository to another of the same workspace without a
re-upload (the same file, new index entries): they appear in <to> and leave <from>. With
--copy they stay in <from> too. Exit 4 when <to> has the version already.

${SELECT_HELP}
  --to-distribution D   publish in <to> for another distribution (default: the same)
  --copy                keep the packages in <from>
  --wait                return once <to>'s edge serves them (see packyard push --help)
  --timeout SECONDS     how long --wait waits (default ${DEFAULT_WAIT_SECONDS})`,
  async run({ positionals, values, api, print }) {
    const [from, to, ...selector] = positionals;
    if (!from || !to) throw usageError('promote', 'promote needs <workspace>/<from> and <workspace>/<to>');
    const timeoutMs = waitTimeoutMs(values, 'promote');
    const client = await api();
    const source = await client.repository(from);
    const target = await client.repository(to);
    if (source.workspace.id !== target.workspace.id) throw new ClientError(EXIT.usage, 'packages can only be promoted within their workspace');
    const action = values.copy ? 'copy' : 'promote';
    const moved: Package[] = [];
    for (const pkg of await selectPackages(client, source, selector, values, 'promote')) {
      moved.push(
        await client.call<Package>('POST', `/workspaces/${source.workspace.id}/repos/${source.repository.id}/packages/${pkg.id}/${action}?wait=published`, {
          targetRepositoryId: target.repository.id,
          ...(values['to-distribution'] ? { distribution: values['to-distribution'] } : {}),
        }),
      );
    }
    if (values.wait) {
      const { repositoryUrl } = await client.call<{ repositoryUrl: string }>('GET', `/repos/${target.repository.id}/snippets`);
      for (const pkg of moved) await waitUntilInstallable(pkg, { repositoryUrl, repository: target.repository, token: client.token, timeoutMs });
    }
    const verb = values.copy ? 'copied' : 'promoted';
    print(moved, moved.map((p) => `${verb} ${p.name} ${p.version} ${p.architecture} (${p.distribution}) to ${to}${values.wait ? '; installable' : ''}`).join('\n'));
  },
};
