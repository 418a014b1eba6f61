import fs from 'node:fs';
import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';

/** A content-hashed build output (`main.1a2b3c4d.js`), or its precompressed copy. */
const HASHED = /\.[0-9a-f]{8}\.(js|css)(\.br|\.gz)?$/;

/**
 * Serves the built client from STATIC_DIR: the brotli or gzip copy the build wrote when the browser
 * accepts it (with Content-Encoding and Vary), hashed assets cached for a year as immutable, everything
 * else (index.html, the app's own routes via the not-found handler) revalidated. Source maps stay on
 * the server: a request for one answers 404.
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
      preCompressed: true,
      allowedPath: (pathName) => !pathName.endsWith('.map'),
      setHeaders: (res, filePath) => {
        res.header('cache-control', HASHED.test(filePath) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  },
  { name: 'static-files', dependencies: ['services'] },
);
