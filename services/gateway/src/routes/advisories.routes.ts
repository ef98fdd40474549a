import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { DISTRIBUTION_PATTERN, formatDistribution, parseDistribution } from '@packyard/formats';
import { AdvisoryServiceDefinition, type Advisory, type AdvisoryPackage } from '@packyard/proto/packyard/repository/v1/advisories';
import type { GatewayOptions } from '../app';

// The request schema checks shapes only; the repository module says what is wrong with a
// value (type, severity, CVE id, NEVRA, distribution) in one place, with a 400 naming the field.
// A distribution's shape is `distro/version`: checked here, it is parsed once into the message
// the module takes (which then says whether RPM uploads offer it).
const ReferenceSchema = Type.Object({
  type: Type.Optional(Type.String({ description: 'cve | bugzilla | self | other (default other)', examples: ['cve'] })),
  id: Type.Optional(Type.String({ description: 'a CVE id (CVE-2026-12345) for type cve; a bug number…', examples: ['CVE-2026-12345'] })),
  href: Type.Optional(Type.String({ description: 'http(s) URL; for a CVE https://www.cve.org/CVERecord?id=<id> by default' })),
  title: Type.Optional(Type.String({ description: 'default: the id' })),
});

const PackageSchema = Type.Object({
  name: Type.String({ examples: ['hello'] }),
  epoch: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  version: Type.String({ examples: ['2.0'] }),
  release: Type.String({ examples: ['1.el9'] }),
  arch: Type.String({ examples: ['x86_64'] }),
  distribution: Type.String({
    pattern: DISTRIBUTION_PATTERN,
    description: 'the upload distribution whose indices carry the advisory (el/9, el/any-version, any-distro/any-version…)',
    examples: ['el/9'],
  }),
});

const CreateAdvisoryBody = Type.Object({
  id: Type.Optional(Type.String({ description: 'default: the next PKY-<year of issue>-<number> of the repository', examples: ['PKY-2026-0001'] })),
  type: Type.String({ description: 'security | bugfix | enhancement (what dnf --security, --bugfix, --enhancement select)', examples: ['security'] }),
  severity: Type.Optional(Type.String({ description: 'Low | Moderate | Important | Critical, or none', examples: ['Important'] })),
  title: Type.String({ maxLength: 200, examples: ['hello: buffer overflow in greeting'] }),
  description: Type.Optional(Type.String({ maxLength: 65536 })),
  issuedAt: Type.Optional(Type.String({ description: 'ISO 8601; default now' })),
  updatedAt: Type.Optional(Type.String({ description: 'ISO 8601; default issuedAt' })),
  references: Type.Optional(Type.Array(ReferenceSchema, { maxItems: 200 })),
  packages: Type.Array(PackageSchema, { maxItems: 1000, description: 'the packages that fix it: a client with an older version installed is offered this one' }),
});

const AdvisorySchema = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('security'), Type.Literal('bugfix'), Type.Literal('enhancement')]),
  severity: Type.Union([Type.Literal(''), Type.Literal('Low'), Type.Literal('Moderate'), Type.Literal('Important'), Type.Literal('Critical')]),
  title: Type.String(),
  description: Type.String(),
  issuedAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  references: Type.Array(Type.Object({ type: Type.String(), id: Type.String(), href: Type.String(), title: Type.String() })),
  packages: Type.Array(Type.Object({ name: Type.String(), epoch: Type.Integer(), version: Type.String(), release: Type.String(), arch: Type.String(), distribution: Type.String() })),
  createdAt: Type.String({ format: 'date-time' }),
});

type AdvisoryType = 'security' | 'bugfix' | 'enhancement';
type Severity = '' | 'Low' | 'Moderate' | 'Important' | 'Critical';
const toPackageJson = ({ legacyDistribution: _legacy, uploadDistribution, ...pkg }: AdvisoryPackage) => ({ ...pkg, distribution: uploadDistribution ? formatDistribution(uploadDistribution) : '' });
const toAdvisoryJson = ({ repositoryId: _repositoryId, ...advisory }: Advisory) => ({
  ...advisory,
  type: advisory.type as AdvisoryType,
  severity: advisory.severity as Severity,
  packages: advisory.packages.map(toPackageJson),
});

const RepositoryPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String() });
const AdvisoryPath = Type.Object({ workspaceId: Type.String(), repoId: Type.String(), advisoryId: Type.String() });

/**
 * `/v1/workspaces/{workspaceId}/repos/{repoId}/advisories`: RPM advisories (errata), published
 * as repodata/updateinfo.xml in the distributions their packages apply to.
 */
export const advisoriesRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const advisories = clients.client(AdvisoryServiceDefinition, 'repository');
  const tags = ['advisories'];
  const security = [{ bearer: [] }];

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/advisories',
    { schema: { tags, security, description: "The repository's advisories, newest issued first", params: RepositoryPath, response: { 200: Type.Array(AdvisorySchema) } } },
    async (request) =>
      (await advisories.listAdvisories({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId }, { caller: request.caller })).advisories.map(toAdvisoryJson),
  );

  app.post(
    '/workspaces/:workspaceId/repos/:repoId/advisories',
    {
      config: { scope: 'publish' },
      schema: {
        tags,
        security,
        description:
          'Posts an advisory (RPM repositories): within seconds it is in repodata/updateinfo.xml of every distribution its packages apply to, for dnf updateinfo and dnf upgrade --security. 409 when the id exists.',
        params: RepositoryPath,
        body: CreateAdvisoryBody,
        response: { 201: AdvisorySchema },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const created = await advisories.createAdvisory(
        {
          workspaceId: request.params.workspaceId,
          repositoryId: request.params.repoId,
          id: body.id ?? '',
          type: body.type,
          severity: body.severity ?? '',
          title: body.title,
          description: body.description ?? '',
          issuedAt: body.issuedAt ?? '',
          updatedAt: body.updatedAt ?? '',
          references: (body.references ?? []).map((reference) => ({ type: reference.type ?? '', id: reference.id ?? '', href: reference.href ?? '', title: reference.title ?? '' })),
          packages: body.packages.map(({ distribution, ...pkg }) => ({ ...pkg, epoch: pkg.epoch ?? 0, uploadDistribution: parseDistribution(distribution) })),
        },
        { caller: request.caller },
      );
      return reply.code(201).send(toAdvisoryJson(created));
    },
  );

  app.get(
    '/workspaces/:workspaceId/repos/:repoId/advisories/:advisoryId',
    { schema: { tags, security, params: AdvisoryPath, response: { 200: AdvisorySchema } } },
    async (request) =>
      toAdvisoryJson(
        await advisories.getAdvisory({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, id: request.params.advisoryId }, { caller: request.caller }),
      ),
  );

  app.delete(
    '/workspaces/:workspaceId/repos/:repoId/advisories/:advisoryId',
    {
      config: { scope: 'publish' },
      schema: { tags, security, description: 'Deletes the advisory; the next publication of its distributions leaves it out of updateinfo.xml', params: AdvisoryPath },
    },
    async (request, reply) => {
      await advisories.deleteAdvisory({ workspaceId: request.params.workspaceId, repositoryId: request.params.repoId, id: request.params.advisoryId }, { caller: request.caller });
      return reply.code(204).send();
    },
  );
};
