import { formatBytes } from '../progress';
import { table, usageError, type ClientCommand } from '../command';
import type { Repository, Workspace } from '../api-client';

export const lsCommand: ClientCommand = {
  name: 'ls',
  summary: 'list workspaces, a workspace\'s repositories, or a repository\'s packages',
  options: { query: { type: 'string', short: 'q' } },
  help: `Usage: packyard ls [<workspace>[/<repository>]] [--query TEXT]

  packyard ls                          your workspaces
  packyard ls <workspace>              its repositories
  packyard ls <workspace>/<repository> its packages, newest first (--query filters by file name)`,
  async run({ positionals, values, api, print }) {
    if (positionals.length > 1) throw usageError('ls', 'ls takes at most one <workspace>[/<repository>]');
    const client = await api();
    const [ref] = positionals;
    if (!ref) {
      const { workspaces } = await client.call<{ workspaces: Workspace[] }>('GET', '/workspaces');
      print(workspaces, table(['WORKSPACE', 'NAME', 'REPOSITORIES'], workspaces.map((w) => [w.slug, w.name, String(w.repositoryCount)])));
      return;
    }
    if (!ref.includes('/')) {
      const workspace = await client.workspace(ref);
      const repositories = await client.call<Repository[]>('GET', `/workspaces/${workspace.id}/repos`);
      print(repositories, table(['REPOSITORY', 'KIND', 'PACKAGES'], repositories.map((r) => [`${workspace.slug}/${r.name}`, r.kind, String(r.packageCount)])));
      return;
    }
    const packages = await client.packages(await client.repository(ref), (values.query as string | undefined) ?? '');
    print(
      packages,
      table(
        ['NAME', 'VERSION', 'ARCH', 'DISTRIBUTION', 'SIZE', 'DOWNLOADS', 'ID'],
        packages.map((p) => [p.name, p.version, p.architecture, p.distribution, formatBytes(p.sizeBytes), String(p.downloads), p.id]),
      ),
    );
  },
};
