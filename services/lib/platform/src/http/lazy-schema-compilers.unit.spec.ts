import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilers } from './lazy-schema-compilers';

// fastify with the lazy compilers answers as with its own: ajv's coercion, defaults and
// messages, fast-json-stringify's response shapes; only when each route's are made differs.

describe('schema compilers made at a route’s first request', () => {
  const app = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers() } });
  afterAll(() => app.close());

  app.post('/items', {
    schema: {
      body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', default: 1 } }, additionalProperties: false },
      querystring: { type: 'object', properties: { dry: { type: 'boolean' } } },
      response: { 201: { type: 'object', properties: { name: { type: 'string' }, count: { type: 'integer' }, dry: { type: 'boolean' } } } },
    },
    handler: async (request, reply) => reply.code(201).send({ ...(request.body as object), dry: (request.query as { dry?: boolean }).dry ?? false, secret: 'not in the schema' }),
  });
  // a schema ajv cannot compile: fastify's own compilers refuse it when the server gets ready
  app.get('/broken', { schema: { querystring: { type: 'object', properties: { n: { type: 'no such type' } } } }, handler: async () => ({}) });

  it('gets ready without compiling any route’s schemas, and fails only the route whose schema does not compile', async () => {
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
    expect((await app.inject({ method: 'POST', url: '/items', payload: { name: 'a' } })).statusCode).toBe(201);
  });

  it('validates, coerces and fills defaults as ajv does, with its messages', async () => {
    const missing = await app.inject({ method: 'POST', url: '/items', payload: { count: 2 } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe("body must have required property 'name'");
    const coerced = await app.inject({ method: 'POST', url: '/items?dry=true', payload: { name: 'a', count: '3', extra: true } });
    expect(coerced.json()).toEqual({ name: 'a', count: 3, dry: true });
    expect((await app.inject({ method: 'POST', url: '/items', payload: { name: 'b' } })).json()).toEqual({ name: 'b', count: 1, dry: false });
  });
});
