import { table, usageError, type ClientCommand } from '../command';

interface AccessToken {
  id: string;
  name: string;
  scopes: string[];
  repositoryId: string | null;
  createdAt: string;
  lastUsed: string | null;
  token?: string;
}

interface RepoToken {
  id: string;
  name: string;
  token?: string;
  isActive: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  usageCount: number;
}

export const tokensCommand: ClientCommand = {
  name: 'tokens',
  summary: 'list, create and revoke account tokens and repository tokens',
  options: { name: { type: 'string' }, scopes: { type: 'string' }, repository: { type: 'string' } },
  help: `Usage: packyard tokens [ls] [<workspace>/<repository>]
       packyard tokens create --name NAME [--scopes read,publish,admin] [--repository <workspace>/<repository>]
       packyard tokens create <workspace>/<repository> --name NAME
       packyard tokens revoke [<workspace>/<repository>] TOKEN_ID

Without a repository these are account tokens (API and, with "read", apt/dnf); with one they
are the repository's tokens for apt/dnf. A new token's value is printed once, on stdout.

  --name NAME          the token's name
  --scopes LIST        account tokens: comma-separated read, publish, admin (default read)
  --repository W/R     account tokens: valid for this repository only`,
  async run({ positionals, values, api, print }) {
    const [verb = 'ls', ...rest] = positionals;
    const client = await api();
    const repositoryOf = async (ref: string | undefined) => (ref ? (await client.repository(ref)).repository : undefined);
    if (verb === 'ls' || verb === 'list') {
      if (rest.length > 1) throw usageError('tokens', 'tokens ls takes at most one <workspace>/<repository>');
      const repository = await repositoryOf(rest[0]);
      if (repository) {
        const tokens = await client.call<RepoToken[]>('GET', `/repos/${repository.id}/tokens`);
        print(tokens, table(['ID', 'NAME', 'ACTIVE', 'USES', 'LAST USED'], tokens.map((t) => [t.id, t.name, t.isActive ? 'yes' : 'no', String(t.usageCount), t.lastUsedAt ?? 'never'])));
      } else {
        const tokens = await client.call<AccessToken[]>('GET', '/tokens');
        print(tokens, table(['ID', 'NAME', 'SCOPES', 'REPOSITORY', 'LAST USED'], tokens.map((t) => [t.id, t.name, t.scopes.join(','), t.repositoryId ?? 'all', t.lastUsed ?? 'never'])));
      }
      return;
    }
    if (verb === 'create') {
      if (rest.length > 1) throw usageError('tokens', 'tokens create takes at most one <workspace>/<repository>');
      if (!values.name) throw usageError('tokens', 'tokens create needs --name');
      const repository = await repositoryOf(rest[0]);
      if (repository) {
        const created = await client.call<RepoToken>('POST', `/repos/${repository.id}/tokens`, { name: values.name });
        print(created, created.token ?? '');
        return;
      }
      const scopes = ((values.scopes as string | undefined) ?? 'read').split(',').map((s) => s.trim()).filter(Boolean);
      const only = await repositoryOf(values.repository as string | undefined);
      const created = await client.call<AccessToken>('POST', '/tokens', { name: values.name, scopes, repositoryId: only?.id ?? null });
      print(created, created.token ?? '');
      return;
    }
    if (verb === 'revoke') {
      const [first, second] = rest;
      if (!first || rest.length > 2) throw usageError('tokens', 'tokens revoke needs a TOKEN_ID (and the <workspace>/<repository> of a repository token)');
      const repository = second ? await repositoryOf(first) : undefined;
      const id = second ?? first;
      await client.call('DELETE', repository ? `/repos/${repository.id}/tokens/${encodeURIComponent(id)}` : `/tokens/${encodeURIComponent(id)}`);
      print({ revoked: id }, `revoked ${id}`);
      return;
    }
    throw usageError('tokens', `unknown tokens command "${verb}"`);
  },
};
