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
    // The reference page brings its own inline script and styles: swagger-ui's policy allows exactly those
    // (by hash) and this origin, minus what does not fit a server reached over plain http on a LAN
    // (upgrade-insecure-requests would send its assets to an https that is not there), any https origin and
    // swagger.io's validator: it loads nothing from elsewhere.
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
      staticCSP: true,
      transformStaticCSP: (header) =>
        header
          .replace(/\s*upgrade-insecure-requests;?/, '')
          .replace(/ (validator\.swagger\.io|https:)/g, '')
          .replace(/\s+;/g, ';')
          .trim(),
    });
    app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'docs' },
);
