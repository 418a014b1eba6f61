import fs from 'node:fs';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';

/**
 * Serves the built client from STATIC_DIR. Hashed assets are cached for a year; everything else
 * (index.html, the app's own routes via the not-found handler) is revalidated.
 */
export const staticFilesPlugin = fp(
  async (app) => {
    if (!fs.existsSync(app.config.staticDir)) {
      app.log.warn({ dir: app.config.staticDir }, 'client build not found; run `npm run build`');
      return;
    }
    await app.register(fastifyStatic, {
      root: app.config.staticDir,
      wildcard: false,
      index: false,
      setHeaders: (res, filePath) => {
        res.header('cache-control', /\.[0-9a-f]{8}\.(js|css)$/.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  },
  { name: 'static-files', dependencies: ['services'] },
);
