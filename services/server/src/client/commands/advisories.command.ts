import { table, usageError, type ClientCommand } from '../command';
import { ClientError, EXIT } from '../exit-codes';

interface AdvisoryPackage {
  name: string;
  epoch: number;
  version: string;
  release: string;
  arch: string;
  distribution: string;
}

interface Advisory {
  id: string;
  type: string;
  severity: string;
  title: string;
  description: string;
  issuedAt: string;
  references: { type: string; id: string; href: string }[];
  packages: AdvisoryPackage[];
}

/** `name-[epoch:]version-release.arch`, as `rpm -q` prints a package: the last two dashes and the last dot split it */
export function parseNevra(text: string, distribution: string): AdvisoryPackage {
  const match = /^(.+)-(?:(\d+):)?([^-:]+)-([^-]+)\.([A-Za-z0-9_]+)$/.exec(text);
  if (!match) throw new ClientError(EXIT.usage, `"${text}" is not name-[epoch:]version-release.arch (see packyard advisories --help)`);
  const [, name, epoch, version, release, arch] = match;
  return { name, epoch: Number(epoch ?? 0), version, release, arch, distribution };
}

export const advisoriesCommand: ClientCommand = {
  name: 'advisories',
  summary: "list, post and withdraw an RPM repository's advisories (updateinfo.xml)",
  options: {
    type: { type: 'string' },
    severity: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    id: { type: 'string' },
    cve: { type: 'string', multiple: true },
    package: { type: 'string', multiple: true },
    distribution: { type: 'string' },
  },
  help: `Usage: packyard advisories [ls] <workspace>/<repository>
       packyard advisories show <workspace>/<repository> ID
       packyard advisories create <workspace>/<repository> --type security --title TITLE
                 --package NAME-VERSION-RELEASE.ARCH [--package …] --distribution el/9
                 [--severity Important] [--cve CVE-2026-12345 …] [--description TEXT] [--id ID]
       packyard advisories rm <workspace>/<repository> ID

Advisories are published as repodata/updateinfo.xml in every distribution their packages apply
to, for dnf updateinfo, dnf upgrade --security and zypper list-patches. A machine with an older
version of a named package installed is offered that one.

  --type T           security, bugfix or enhancement
  --severity S       Low, Moderate, Important or Critical
  --package NEVRA    a package that fixes it, as rpm -q prints it (epoch as 1:2.0); repeatable
  --distribution D   the upload distribution of the packages (el/9, el/any-version…)
  --cve ID           a CVE the advisory fixes; repeatable
  --id ID            the advisory's id (default: the repository's next PKY-<year>-<number>)`,
  async run({ positionals, values, api, print }) {
    const [verb, ...rest] = positionals[0]?.includes('/') ? ['ls', ...positionals] : positionals;
    const [ref, id, ...extra] = rest;
    if (!ref || extra.length) throw usageError('advisories', `advisories ${verb ?? ''} needs <workspace>/<repository>${verb === 'show' || verb === 'rm' ? ' and an ID' : ''}`.trim());
    const client = await api();
    const { workspace, repository } = await client.repository(ref);
    const path = `/workspaces/${workspace.id}/repos/${repository.id}/advisories`;
    const needId = () => {
      if (!id) throw usageError('advisories', `advisories ${verb} needs an advisory ID`);
      return encodeURIComponent(id);
    };
    switch (verb) {
      case 'ls':
      case 'list': {
        const advisories = await client.call<Advisory[]>('GET', path);
        print(advisories, table(['ID', 'TYPE', 'SEVERITY', 'ISSUED', 'TITLE'], advisories.map((a) => [a.id, a.type, a.severity || '-', a.issuedAt.slice(0, 10), a.title])));
        return;
      }
      case 'show': {
        const advisory = await client.call<Advisory>('GET', `${path}/${needId()}`);
        const packages = advisory.packages.map((p) => `  ${p.name}-${p.epoch ? `${p.epoch}:` : ''}${p.version}-${p.release}.${p.arch} (${p.distribution})`);
        const references = advisory.references.map((r) => `  ${r.id || r.type} ${r.href}`.trimEnd());
        print(advisory, [`${advisory.id}  ${advisory.type}${advisory.severity ? ` (${advisory.severity})` : ''}  ${advisory.title}`, `issued ${advisory.issuedAt}`, 'packages:', ...packages, ...(references.length ? ['references:', ...references] : []), ...(advisory.description ? ['', advisory.description] : [])].join('\n'));
        return;
      }
      case 'create': {
        if (id) throw usageError('advisories', 'advisories create takes the id as --id');
        const packages = (values.package as unknown as string[] | undefined) ?? [];
        if (!values.type || !values.title || !packages.length || !values.distribution) {
          throw usageError('advisories', 'advisories create needs --type, --title, --distribution and at least one --package');
        }
        const created = await client.call<Advisory>('POST', path, {
          ...(values.id ? { id: values.id } : {}),
          type: values.type,
          title: values.title,
          severity: values.severity ?? '',
          description: values.description ?? '',
          references: ((values.cve as unknown as string[] | undefined) ?? []).map((cve) => ({ type: 'cve', id: cve })),
          packages: packages.map((text) => parseNevra(text, values.distribution as string)),
        });
        print(created, created.id);
        return;
      }
      case 'rm':
      case 'delete':
        await client.call('DELETE', `${path}/${needId()}`);
        print({ deleted: id }, `deleted ${id}`);
        return;
      default:
        throw usageError('advisories', `unknown advisories command "${verb}"`);
    }
  },
};
