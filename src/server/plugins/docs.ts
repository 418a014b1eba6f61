import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/** OpenAPI generated from the route schemas (`/api/openapi.json`) and a reference page at `/api/docs`. */
export const docsPlugin = fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'DevOps Agents API', version: '0.1.0', description: 'Every call of the DevOps Agents app. Sign in first: the session cookie authenticates.' },
        components: { securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'da_session' } } },
        security: [{ session: [] }],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
    app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'docs' },
);
