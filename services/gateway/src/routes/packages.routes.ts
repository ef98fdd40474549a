import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { PackyardError, waitUntilServed, type Caller } from '@packyard/platform';
import { ArtifactServiceDefinition, type DownloadSeries, type Package } from '@packyard/proto/packyard/artifact/v1/artifact';
import { TokenServiceDefinition } from '@packyard/proto/packyard/token/v1/token';
import type { GatewayOptions } from '../app';

/** The spec's package object (§6) plus the distribution it was uploaded for. */
export const PackageSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  architecture: Type.String({ description: '"source" for a Debian source package' }),
  filename: Type.String({ description: 'derived from name, version and architecture (a source package: its .dsc, name_version.dsc); the extension says the kind: .deb, .udeb, .ddeb, .dsc or .rpm' }),
  sizeBytes: Type.Integer({ description: 'the stored file (a source package: its .dsc)' }),
  downloads: Type.Integer(),
  publishedAt: Type.String({ format: 'date-time' }),
  distribution: Type.String({ description: 'distro/version, e.g. ubuntu/noble' }),
});

export const toPackageJson = ({ repositoryId: _repositoryId, sha256: _sha256, ...item }: Package) => item;

const PackagesPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String() });
const PackagePath = Type.Object({ workspaceId: Type.String(), repoId: Type.String(), packageId: Type.String() });

const RelationSchema = Type.Object({
  relation: Type.String({ description: 'DEB: Depends, Pre-Depends, Recommends, Suggests, Enhances, Breaks, Conflicts, Provides, Replaces; RPM: Requires, Provides, Conflicts, Obsoletes, Recommends, Suggests, Supplements, Enhances' }),
  items: Type.Array(Type.String(), { description: 'as the package states them, e.g. "libc6 (>= 2.34)" or "glibc >= 2.34"' }),
});

const PackageDetailsSchema = Type.Object({
  package: PackageSchema,
  kind: Type.Union([Type.Literal('DEB'), Type.Literal('RPM')]),
  summary: Type.String({ description: 'DEB: the first line of Description; RPM: Summary' }),
  description: Type.String({ description: 'DEB: the extended Description, unfolded; RPM: %description' }),
  relations: Type.Array(RelationSchema),
  facts: Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), { description: 'Maintainer, Section, Homepage, License, URL… as the package states them' }),
  files: Type.Array(Type.String(), { description: 'installed paths (not directories), at most the first 10,000' }),
  filesTotal: Type.Integer({ description: 'how many files the package installs' }),
  filesNote: Type.Union([Type.String(), Type.Null()], { description: 'why the list is cut or missing; null when whole' }),
  checksums: Type.Object({
    sha256: Type.String(),
    sha1: Type.Union([Type.String(), Type.Null()]),
    md5: Type.Union([Type.String(), Type.Null()]),
    sha512: Type.Union([Type.String(), Type.Null()]),
  }, { description: 'of the stored file (an .rpm as signed by the repository); null where not recorded (RPM: SHA-256 only)' }),
  versions: Type.Array(PackageSchema, { description: 'every package of this name in the repository, newest upload first' }),
  distributions: Type.Array(Type.String(), { description: 'the upload distributions holding this name, version and architecture' }),
});

const DownloadsQuery = Type.Object({
  period: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('hour')], { default: 'day', description: 'hour: the last 48 hours' })),
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'days back, today included (period day)' })),
  by: Type.Optional(Type.Union([Type.Literal('version'), Type.Literal('token')], { description: 'one line per version of the name, or per token; absent: one line for this package' })),
});

/** Downloads per bucket; `lines` are the series (their `counts` follow `buckets`). */
export const DownloadSeriesSchema = Type.Object({
  period: Type.Union([Type.Literal('day'), Type.Literal('hour')]),
  buckets: Type.Array(Type.String(), { description: 'oldest first, UTC: 2026-11-24 (day) or 2026-11-24T13 (hour)' }),
  total: Type.Integer(),
  lines: Type.Array(
    Type.Object({
      key: Type.String({ description: 'the version, the token id, or "total"' }),
      label: Type.String({ description: 'what to call the line: the version, the token\'s name, or "All downloads"' }),
      total: Type.Integer(),
      counts: Type.Array(Type.Integer()),
    }),
  ),
});

const CopyBody = Type.Object({
  targetRepositoryId: Type.String({ minLength: 1, description: 'a repository of the same workspace and kind' }),
  distribution: Type.Optional(Type.String({ description: "distro/version in the target (default: the package's own)" })),
});

/** `/v1/workspaces/{workspaceId}/repos/{repoId}/packages` (spec §7): list and search, delete. */
export const packagesRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const artifact = clients.client(ArtifactServiceDefinition, 'artifact');
  const tokens = clients.client(TokenServiceDefinition, 'token');

  /** token id → name among the repository's tokens and the caller's account tokens the caller may list */
  async function tokenNames(repositoryId: string, caller: Caller): Promise<Map<string, string>> {
    const listed = await Promise.all([
      tokens.listRepoTokens({ repositoryId }, { caller }).then((answer) => answer.tokens),
      tokens.listAccessTokens({}, { caller }).then((answer) => answer.tokens),
    ].map((listing) => listing.catch((error: unknown) => {
      // an account token without the scope to list tokens still sees the figures, by id
      if (error instanceof PackyardError && error.kind === 'FORBIDDEN') return [];
      throw error;
    })));
    return new Map(listed.flat().map((token) => [token.id, token.name]));
  }

  function labelled(series: DownloadSeries, by: string | undefined, names: Map<string, string>) {
    const label = (key: string) => (by === 'token' ? (names.get(key) ?? (key ? `deleted token ${key.slice(0, 8)}` : 'no token')) : by === 'version' ? key : 'All downloads');
    return { ...series, lines: series.lines.map((line) => ({ ...line, label: label(line.key), total: Number(line.total), counts: line.counts.map(Number) })), total: Number(series.total) };
  }
  const tags = ['packages'];
  const security = [{ bearer: [] }];

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/packages',
    {
      schema: {
        tags,
        security,
        description: 'Packages of a repository, newest first; q matches the file name (case-insensitive)',
        params: PackagesPath,
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 200 })),
          page: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'zero-based' })),
          size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        }),
        response: { 200: Type.Object({ items: Type.Array(PackageSchema), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const { items, total } = await artifact.listPackages(
        { workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, q: request.query.q ?? '', page: request.query.page ?? 0, size: request.query.size ?? 20 },
        { caller: request.caller },
      );
      return { items: items.map(toPackageJson), total };
    },
  );

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/packages/:packageId',
    {
      schema: {
        tags,
        security,
        description: 'One package: what its file says (description, relations, facts, files, checksums), the versions of its name in the repository and where it is',
        params: PackagePath,
        response: { 200: PackageDetailsSchema },
      },
    },
    async (request) => {
      const details = await artifact.getPackage({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, packageId: request.params.packageId }, { caller: request.caller });
      const { package: pkg, md5, sha1, sha512, filesNote, ...rest } = details;
      return {
        ...rest,
        kind: rest.kind as 'DEB' | 'RPM',
        package: toPackageJson(pkg!),
        versions: details.versions.map(toPackageJson),
        filesNote: filesNote || null,
        checksums: { sha256: pkg!.sha256, sha1: sha1 || null, md5: md5 || null, sha512: sha512 || null },
      };
    },
  );

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/packages/:packageId/downloads',
    {
      schema: {
        tags,
        security,
        description:
          'Downloads of the package per day (UTC; the last 90 days are kept) or per hour (the last 48 hours), as delivery counted them: one line, or one per version of its name (by=version) or per token (by=token)',
        params: PackagePath,
        querystring: DownloadsQuery,
        response: { 200: DownloadSeriesSchema },
      },
    },
    async (request) => {
      const { by, period = 'day', days = 30 } = request.query;
      const series = await artifact.getPackageDownloads(
        { workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, packageId: request.params.packageId, by: by ?? '', period, days },
        { caller: request.caller },
      );
      const names = by === 'token' ? await tokenNames(request.params.repoId, request.caller) : new Map<string, string>();
      return { period, ...labelled(series, by, names) };
    },
  );

  app.delete(
    '/workspaces/:workspaceId/repos/:repoId/packages/:packageId',
    {
      config: { scope: 'publish' },
      schema: {
        tags,
        security,
        description: 'Deletes a package: it leaves every index it was in; its file is freed once no package uses it',
        params: PackagePath,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await artifact.deletePackage({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, packageId: request.params.packageId }, { caller: request.caller });
      return reply.code(204).send(null);
    },
  );

  for (const action of ['copy', 'promote'] as const) {
    app.post(
      `/workspaces/:workspaceId/repos/:repoId/packages/:packageId/${action}`,
      {
        config: { scope: 'publish' },
        schema: {
          tags,
          security,
          description:
            (action === 'copy'
              ? 'Copies the package into another repository of the workspace without a re-upload: the same file, new index entries (event PackageCopied). '
              : 'Moves the package to another repository of the workspace: a copy (event PackagePromoted), then the package leaves this repository. ') +
            'With ?wait=published the answer comes once the target publishes it (202 when that takes longer than 30 s); 409 when the target has that version already.',
          params: PackagePath,
          querystring: Type.Object({ wait: Type.Optional(Type.Literal('published')) }),
          body: CopyBody,
          response: { 201: PackageSchema, 202: PackageSchema },
        },
      },
      async (request, reply) => {
        const copied = await artifact.copyPackage(
          {
            workspaceId: request.params.workspaceId,
            repositoryId: request.params.repoId,
            packageId: request.params.packageId,
            targetRepositoryId: request.body.targetRepositoryId,
            distribution: request.body.distribution ?? '',
            promote: action === 'promote',
          },
          { caller: request.caller },
        );
        const published = request.query.wait === 'published' ? await waitUntilServed(clients, copied.repositoryId, copied.id, request.caller) : true;
        return reply.code(published ? 201 : 202).send(toPackageJson(copied));
      },
    );
  }
};
