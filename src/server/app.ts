import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import websocket from '@fastify/websocket';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppConfig } from './config';
import type { Database } from './db/client';
import { agentRateLimitPlugin } from './plugins/agentRateLimit';
import { docsPlugin } from './plugins/docs';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors';
import { hotPollPlugin } from './plugins/hotPoll';
import { lazySchemaCompilers } from './plugins/lazySchemas';
import { requestInputPlugin } from './plugins/requestInput';
import { requestOriginPlugin } from './plugins/requestOrigin';
import { servicesPlugin } from './plugins/services';
import { lazyRequestLogger, requestLogPlugin } from './plugins/requestLog';
import { sessionPlugin } from './plugins/session';
import { staticFilesPlugin } from './plugins/staticFiles';
import { activityRoutes } from './routes/activity';
import { authRoutes } from './routes/auth';
import { costRoutes } from './routes/costs';
import { notificationRoutes } from './routes/notifications';
import { releaseRoutes } from './routes/releases';
import { backupRoutes } from './routes/backups';
import { creditRoutes } from './routes/credits';
import { devopsHelperRoutes } from './routes/devopsHelper';
import { documentationRoutes } from './routes/documentation';
import { executionRoutes } from './routes/execution';
import { healthRoutes } from './routes/health';
import { paymentRoutes } from './routes/payments';
import { planningRoutes } from './routes/planning';
import { projectRoutes } from './routes/projects';
import { publicConfigRoutes } from './routes/publicConfig';
import { repositoryRoutes } from './routes/repositories';
import { sandboxRoutes } from './routes/sandbox';
import { stageRoutes } from './routes/stages';
import { validationRoutes } from './routes/validation';
import { createGithubProvider } from './services/auth/githubProvider';
import { createLocalProvider, type IdentityProvider } from './services/auth/identityProvider';

/** Answers compressed on the fly: JSON and HTML. Never event streams, zips or media. */
const COMPRESSED_TYPES = /^(application\/json|text\/html|text\/plain)/;

export interface BuildOptions {
  config: AppConfig;
  database: Database;
  /** Defaults to the provider the configuration names. */
  identityProvider?: IdentityProvider;
  logger?: FastifyServerOptions['logger'];
}

/**
 * Builds the Fastify app: external plugins, then ours, then routes under /api (fastify/demo's order).
 * `server.ts` only opens the database and listens; tests build it and use `app.inject`.
 */
export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'],
    },
    // requestLogPlugin logs what matters (errors, slow requests) instead of two lines per request.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: true, allErrors: false } },
    schemaController: lazySchemaCompilers(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(cookie);
  // JSON and HTML answers above 1 KiB compressed (gzip first: cheaper per answer than brotli); a 304 has
  // no body, streams (SSE, sockets) are hijacked, and built assets are precompressed (staticFilesPlugin).
  // Requests are never decompressed: browsers send plain bodies, and the two hooks it adds to every route
  // would run on each hot poll for nothing (a gzip body is then refused as JSON that does not parse).
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: 1024,
    encodings: ['gzip', 'br', 'deflate'],
    customTypes: COMPRESSED_TYPES,
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_req, ctx) => ({ statusCode: 429, message: `Too many requests: try again in ${ctx.after}` }),
  });
  // Terminal frames are small JSON; a browser never needs more than this in one message.
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  await app.register(servicesPlugin, { config, database: options.database });
  await app.register(errorsPlugin);
  await app.register(requestInputPlugin);
  await app.register(requestOriginPlugin);
  await app.register(requestLogPlugin);
  await app.register(sessionPlugin);
  await app.register(hotPollPlugin);
  await app.register(docsPlugin);
  await app.register(agentRateLimitPlugin);

  const provider =
    options.identityProvider ??
    (config.github ? createGithubProvider({ db: options.database.db, github: config.github }) : createLocalProvider());
  await app.register(
    async (api) => {
      await api.register(healthRoutes);
      await api.register(authRoutes, { provider });
      await api.register(projectRoutes);
      await api.register(stageRoutes);
      await api.register(sandboxRoutes);
      await api.register(costRoutes);
      await api.register(creditRoutes);
      await api.register(paymentRoutes);
      await api.register(planningRoutes);
      await api.register(repositoryRoutes);
      await api.register(executionRoutes);
      await api.register(validationRoutes);
      await api.register(documentationRoutes);
      await api.register(devopsHelperRoutes);
      await api.register(activityRoutes);
      await api.register(notificationRoutes);
      await api.register(releaseRoutes);
      await api.register(backupRoutes);
      await api.register(publicConfigRoutes);
    },
    { prefix: '/api' },
  );
  await app.register(staticFilesPlugin);
  return app;
}
