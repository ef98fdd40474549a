import { usageError, type ClientCommand } from '../command';
import { selectPackages, SELECT_OPTIONS, SELECT_HELP } from '../package-selection';

export const rmCommand: ClientCommand = {
  name: 'rm',
  summary: 'delete package versions from a repository',
  options: SELECT_OPTIONS,
  help: `Usage: packyard rm <workspace>/<repository> <name> <version> [--distribution D] [--arch A]
       packyard rm <workspace>/<repository> --id PACKAGE_ID

Deletes every matching package (a version uploaded for two distributions is two packages);
it leaves the indices at the next publish. Exit 3 when nothing matches.

${SELECT_HELP}`,
  async run({ positionals, values, api, print }) {
    const [ref, ...selector] = positionals;
    if (!ref) throw usageError('rm', 'rm needs <workspace>/<repository>');
    const client = await api();
    const repository = await client.repository(ref);
    const matches = await selectPackages(client, repository, selector, values, 'rm');
    for (const pkg of matches) await client.call('DELETE', `/workspaces/${repository.workspace.id}/repos/${repository.repository.id}/packages/${pkg.id}`);
    print(matches, matches.map((p) => `deleted ${p.name} ${p.version} ${p.architecture} (${p.distribution})`).join('\n'));
  },
};
