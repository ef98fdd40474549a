import { ClientError, EXIT } from './exit-codes';
import { usageError } from './command';
import type { ApiClient, Package, RepositoryRef } from './api-client';

/** options of the commands that pick packages by name and version (rm, promote) */
export const SELECT_OPTIONS = {
  id: { type: 'string' },
  distribution: { type: 'string', short: 'd' },
  arch: { type: 'string', short: 'a' },
} as const;

export const SELECT_HELP = `  --id ID               one package by its id (as \`packyard ls --json\` shows it)
  -d, --distribution D  only the version uploaded for D (e.g. debian/bookworm)
  -a, --arch A          only architecture A (e.g. amd64, all, x86_64)`;

/** The packages `<name> <version>` (narrowed by --distribution/--arch) or `--id` name; fails with exit 3 when none does. */
export async function selectPackages(
  client: ApiClient,
  repository: RepositoryRef,
  selector: string[],
  values: Record<string, string | boolean | undefined>,
  command: string,
): Promise<Package[]> {
  const id = values.id as string | undefined;
  if (id ? selector.length : selector.length !== 2) throw usageError(command, 'name the packages as <name> <version>, or --id ID');
  const [name, version] = selector;
  const candidates = await client.packages(repository, id ? '' : name);
  const matches = candidates.filter((p) =>
    id
      ? p.id === id
      : p.name === name && p.version === version && (!values.distribution || p.distribution === values.distribution) && (!values.arch || p.architecture === values.arch),
  );
  if (!matches.length) {
    const what = id ? `package ${id}` : `${name} ${version}${values.distribution ? ` for ${values.distribution}` : ''}${values.arch ? ` (${values.arch})` : ''}`;
    throw new ClientError(EXIT.notFound, `no ${what} in ${repository.workspace.slug}/${repository.repository.name}`);
  }
  return matches;
}
