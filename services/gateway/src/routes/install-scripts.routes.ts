import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import type { GatewayOptions } from '../app';

/**
 * `GET /api/install-deb.sh` and `/api/install-rpm.sh?repo=<id>` (spec §7): the installer
 * rendered for one repository. Public: a machine fetches it before it has anything but
 * the token it passes as the script's argument, and the script holds no secret.
 */
export const installScriptsRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const delivery = clients.client(DeliveryServiceDefinition, 'delivery');
  app.get(
    '/install-:product.sh',
    {
      schema: {
        tags: ['install'],
        description: 'The install script of a repository; run it as root with the repository token as its argument',
        params: Type.Object({ product: Type.Union([Type.Literal('deb'), Type.Literal('rpm')]) }),
        querystring: Type.Object({
          repo: Type.String({ minLength: 1, description: 'repository id' }),
          distro: Type.Optional(Type.String({ description: 'DEB: the distro of the codename, when several publish it (a repository\'s own codename such as stable)' })),
          codename: Type.Optional(Type.String({ description: 'DEB: the suite; default: the machine\'s own codename' })),
          component: Type.Optional(Type.String({ description: 'DEB: default the repository\'s component' })),
        }),
        response: { 200: Type.String() },
      },
    },
    async (request, reply) => {
      const { script } = await delivery.getInstallScript(
        {
          repositoryId: request.query.repo,
          product: request.params.product,
          distro: request.query.distro ?? '',
          codename: request.query.codename ?? '',
          component: request.query.component ?? '',
          origin: `${request.protocol}://${request.host}`,
        },
        { caller: { userId: '', kind: 'anonymous', scopes: [], repositoryId: '', tokenId: '', address: request.ip } },
      );
      return reply.type('text/x-shellscript; charset=utf-8').header('cache-control', 'no-cache').send(script);
    },
  );
};
