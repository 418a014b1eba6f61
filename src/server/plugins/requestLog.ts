import fp from 'fastify-plugin';

/** A request slower than this is logged at warn whatever its status. */
export const SLOW_REQUEST_MS = 1_000;

/**
 * One line per request only when it says something: a 5xx at error, a slow request at warn, a 4xx at
 * info, everything else at debug. Fastify's own two lines per request (about 40 µs, most of a hot
 * poll's cost) are turned off in `buildApp`; LOG_LEVEL=debug shows every request again.
 */
export const requestLogPlugin = fp(
  async (app) => {
    app.addHook('onResponse', (request, reply, done) => {
      const status = reply.statusCode;
      const ms = reply.elapsedTime;
      if (status >= 500) request.log.error({ req: request, res: reply, responseTime: ms }, 'request failed');
      else if (ms >= SLOW_REQUEST_MS) request.log.warn({ req: request, res: reply, responseTime: ms }, 'slow request');
      else if (status >= 400) request.log.info({ req: request, res: reply, responseTime: ms }, 'request refused');
      else request.log.debug({ req: request, res: reply, responseTime: ms }, 'request completed');
      done();
    });
  },
  { name: 'request-log' },
);
