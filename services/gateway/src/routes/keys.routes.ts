import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyPluginAsync } from 'fastify';
import { SigningServiceDefinition } from '@packyard/proto/packyard/signing/v1/signing';
import type { GatewayOptions } from '../app';

const SigningKeySchema = Type.Object({
  fingerprint: Type.String({ description: '40 hex digits, as gpg --fingerprint prints them without spaces' }),
  algorithm: Type.String({ description: 'rsa4096' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'null: the key never expires (keys made before keys had an expiry)' }),
  status: Type.Union([Type.Literal('current'), Type.Literal('previous'), Type.Literal('retired')], {
    description: 'current signs everything; previous still signs metadata beside it until signsUntil; retired signs nothing but stays in the served keyring for packages it signed',
  }),
  signsUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const RollBody = Type.Object({
  overlapSeconds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 90 * 24 * 3600, description: 'how long the current key keeps signing beside the new one (default: SIGNING_KEY_OVERLAP_DAYS)' }),
  ),
});

type KeyInfo = { fingerprint: string; algorithm: string; createdAt: string; expiresAt: string; status: string; signsUntil: string };
const keyJson = (key: KeyInfo) => ({
  fingerprint: key.fingerprint,
  algorithm: key.algorithm,
  createdAt: key.createdAt,
  expiresAt: key.expiresAt || null,
  status: key.status as 'current' | 'previous' | 'retired',
  signsUntil: key.signsUntil || null,
});

/** `GET /v1/repos/{id}/keys` and `POST /v1/repos/{id}/keys/roll`: a repository's signing keys and their rotation. */
export const keysRoutes: FastifyPluginAsync<GatewayOptions> = async (plain, { clients }) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const signing = clients.client(SigningServiceDefinition, 'signing');
  app.get(
    '/repos/:id/keys',
    {
      schema: {
        tags: ['repositories'],
        security: [{ bearer: [] }],
        params: Type.Object({ id: Type.String() }),
        response: { 200: Type.Array(SigningKeySchema) },
      },
    },
    async (request) => (await signing.listKeys({ repositoryId: request.params.id }, { caller: request.caller })).keys.map(keyJson),
  );
  app.post(
    '/repos/:id/keys/roll',
    {
      schema: {
        tags: ['repositories'],
        summary: 'Start rolling the signing key: a new key (made in the background, seconds) signs beside the current one for the overlap, then alone; GET …/keys shows it once made',
        security: [{ bearer: [] }],
        params: Type.Object({ id: Type.String() }),
        body: Type.Optional(RollBody),
        response: {
          202: Type.Object({
            replacedFingerprint: Type.String({ description: 'the key the roll replaces; it signs beside the new one until overlapUntil' }),
            overlapUntil: Type.String({ format: 'date-time' }),
          }),
        },
      },
    },
    async (request, reply) => {
      const started = await signing.rollKey({ repositoryId: request.params.id, overlapSeconds: request.body?.overlapSeconds ?? 0 }, { caller: request.caller });
      return reply.code(202).send(started);
    },
  );
};
