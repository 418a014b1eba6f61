import Fastify from 'fastify';
import { lazySchemaCompilers } from '../../../src/server/plugins/lazySchemas';

/** Route schemas compiled on a route's first call (cold start): the same answers as Fastify's eager compilers. */
describe('lazy schema compilers', () => {
  const build = (schemaController?: ReturnType<typeof lazySchemaCompilers>) => {
    const app = Fastify({ ajv: { customOptions: { coerceTypes: false, removeAdditional: true } }, ...(schemaController ? { schemaController } : {}) });
    app.post(
      '/things',
      {
        schema: {
          body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1 } } },
          response: { 200: { type: 'object', properties: { name: { type: 'string' }, count: { type: 'integer' } } } },
        },
      },
      async (request) => ({ ...(request.body as object), count: 2, hidden: 'not in the schema' }),
    );
    return app;
  };

  it('validates, strips and serialises exactly as the eager compilers do', async () => {
    const [lazy, eager] = [build(lazySchemaCompilers()), build()];
    for (const payload of [{ name: 'a', extra: 1 }, { name: '' }, {}, { name: 5 }]) {
      const [a, b] = await Promise.all([lazy.inject({ method: 'POST', url: '/things', payload }), eager.inject({ method: 'POST', url: '/things', payload })]);
      expect({ payload, status: a.statusCode, body: a.json() }).toEqual({ payload, status: b.statusCode, body: b.json() });
    }
    expect((await lazy.inject({ method: 'POST', url: '/things', payload: { name: 'a', extra: 1 } })).json()).toEqual({ name: 'a', count: 2 });
    await Promise.all([lazy.close(), eager.close()]);
  });

  it("compiles nothing at start: a schema Ajv refuses fails only that route's first call", async () => {
    const app = Fastify({ schemaController: lazySchemaCompilers() });
    app.post('/broken', { schema: { body: { type: 'no-such-type' } } }, async () => ({}));
    app.get('/fine', async () => ({ ok: true }));
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/fine' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/broken', payload: {} })).statusCode).toBe(500);
    await app.close();
  });
});
