import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import type { GatewayOptions } from '../app';

const SnippetsSchema = Type.Object({
  apt: Type.String({ description: 'DEB: APT setup commands (key, token, source line); empty for RPM' }),
  yum: Type.String({ description: 'RPM: the .repo file setup; empty for DEB' }),
  publicKeyUrl: Type.String({ description: 'the armored public key, served without a token' }),
  repositoryUrl: Type.String(),
  setupCommands: Type.Object({
    oneLiner: Type.String(),
    downloadScript: Type.String(),
    makeExecutable: Type.String(),
    runInstaller: Type.String(),
  }),
  distributions: Type.Array(
    Type.Object({ distro: Type.String(), version: Type.String(), packageCount: Type.Integer() }),
    { description: 'the distributions whose published index holds packages: the repository\'s own codename first, then the upload list\'s order' },
  ),
  distro: Type.String({ description: 'DEB: the distro the texts use; empty for RPM' }),
  codename: Type.String({ description: 'DEB: the suite the texts use; empty for RPM' }),
  component: Type.String({ description: 'DEB: the component the texts use; empty for RPM' }),
});

const SnippetsQuery = Type.Object({
  distro: Type.Optional(Type.String({ description: 'DEB: the distro of the codename, when several publish it (a repository\'s own codename such as stable)' })),
  codename: Type.Optional(Type.String({ description: 'DEB: a codename of distributions (default: where the packages are, the repository\'s own codename first; before the first upload the repository\'s, else noble)' })),
  component: Type.Optional(Type.String({ description: 'DEB: main, contrib, non-free (default: the repository\'s, else main)' })),
  token: Type.Optional(Type.String({ description: 'put into the commands instead of the placeholder YOUR_TOKEN' })),
});

/** `GET /v1/repos/{id}/snippets` (spec §7): install instructions; texts without a token carry `YOUR_TOKEN`. */
export const snippetsRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const delivery = clients.client(DeliveryServiceDefinition, 'delivery');
  app.get(
    '/repos/:id/snippets',
    {
      schema: {
        tags: ['repositories'],
        security: [{ bearer: [] }],
        params: Type.Object({ id: Type.String() }),
        querystring: SnippetsQuery,
        response: { 200: SnippetsSchema },
      },
    },
    async (request) => {
      const snippets = await delivery.getSnippets(
        {
          repositoryId: request.params.id,
          distro: request.query.distro ?? '',
          codename: request.query.codename ?? '',
          component: request.query.component ?? '',
          token: request.query.token ?? '',
          origin: `${request.protocol}://${request.host}`,
        },
        { caller: request.caller },
      );
      return { ...snippets, setupCommands: snippets.setupCommands ?? { oneLiner: '', downloadScript: '', makeExecutable: '', runInstaller: '' } };
    },
  );
};
