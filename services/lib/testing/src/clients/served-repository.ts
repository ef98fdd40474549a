import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ApiSession } from '../api-session';
import type { RunningPackyard } from '../program';
import { waitFor } from '../wait-for';
import { repositoryProbes, type FetchProbe } from './fetch-loop';

export interface ServedRepositorySpec {
  workspaceId: string;
  /** the workspace's slug, part of the repository's URL */
  slug: string;
  name: string;
  kind: 'DEB' | 'RPM';
  /** .deb or .rpm files uploaded in turn (to debian/bookworm or el/9) */
  files: readonly string[];
  /** a package of `files` the probes look for */
  packageName: string;
}

/**
 * Makes a repository through the API as a user does (the repository, a token, the uploads)
 * and returns what an apt or dnf client of it fetches, once `packageName` is published.
 */
export async function makeServedRepository(packyard: Pick<RunningPackyard, 'url'>, session: ApiSession, { workspaceId, slug, name, kind, files, packageName }: ServedRepositorySpec): Promise<FetchProbe[]> {
  const repository = await session.call<{ id: string }>('POST', `/workspaces/${workspaceId}/repos`, { name, kind, codename: 'bookworm', component: 'main' });
  if (repository.status !== 201) throw new Error(`creating ${name} answered ${repository.status}: ${JSON.stringify(repository.body)}`);
  const token = (await session.call<{ token: string }>('POST', `/repos/${repository.body.id}/tokens`, { name: 'probes' })).body.token;
  const url = `${packyard.url}/${kind === 'DEB' ? 'deb' : 'rpm'}/${slug}/${name}`;
  // an .rpm is signed while its upload is claimed: the repository's first key (RSA-4096, seconds of CPU) must exist first
  await waitFor('the repository key', async () => ((await fetch(`${url}/gpg.key`)).status === 200 ? true : undefined), { timeoutMs: 600_000 });
  await uploadPackages(packyard, session, { workspaceId, repositoryId: repository.body.id, kind, files });
  return repositoryProbes(url, kind, token, packageName, 600_000);
}

/** Uploads `files` to a repository in turn, through the API (to debian/bookworm or el/9). */
export async function uploadPackages(packyard: Pick<RunningPackyard, 'url'>, session: ApiSession, { workspaceId, repositoryId, kind, files }: { workspaceId: string; repositoryId: string; kind: 'DEB' | 'RPM'; files: readonly string[] }): Promise<void> {
  for (const file of files) {
    const form = new FormData();
    form.set('distribution', kind === 'DEB' ? 'debian/bookworm' : 'el/9');
    form.set('file', new Blob([await readFile(file)]), basename(file));
    const upload = await fetch(`${packyard.url}/api/v1/workspaces/${workspaceId}/repos/${repositoryId}/upload`, { method: 'POST', headers: { authorization: `Bearer ${session.bearer}` }, body: form });
    if (upload.status !== 201) throw new Error(`uploading ${basename(file)} to repository ${repositoryId} answered ${upload.status}: ${await upload.text()}`);
  }
}
