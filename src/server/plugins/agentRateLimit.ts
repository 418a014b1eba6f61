import fp from 'fastify-plugin';
import type { FastifyRequest, RouteOptions } from 'fastify';
import { hookList } from './routeHooks';

/** Every route that runs an agent turn (a model call paid from the person's credits). */
export const AGENT_ROUTES = new Set([
  'POST /api/planning/requirements-gatherer',
  'POST /api/planning/cloud-architect',
  'POST /api/planning/implementation-planner',
  'POST /api/planning/analyzer',
  'GET /api/execution/agent',
  'GET /api/validation/agent',
  'POST /api/documentation/generate',
  'POST /api/devops-helper/chat',
]);

const routeKeys = (route: RouteOptions): string[] =>
  (Array.isArray(route.method) ? route.method : [route.method]).map((method) => `${method} ${route.url}`);

/**
 * Agent calls are rate-limited per person (ARCHITECTURE.md: "login, payments and agent calls have
 * rate limits"): one budget of AGENT_RATE_LIMIT_PER_MINUTE shared by every agent route, keyed by the
 * session's user, so neither another IP address nor another tab buys more. Runs as a preHandler,
 * after the session hook has said who the caller is. Register before the routes.
 */
export const agentRateLimitPlugin = fp(
  async (app) => {
    const limit = app.rateLimit({
      max: app.config.agentRateLimitPerMinute,
      timeWindow: '1 minute',
      keyGenerator: (request: FastifyRequest) => `agent-user:${request.auth?.userId ?? request.ip}`,
      errorResponseBuilder: (_request, context) => ({
        statusCode: 429,
        message: `Too many agent requests: at most ${context.max} a minute per person. Try again in ${context.after}.`,
      }),
    });
    app.addHook('onRoute', (route) => {
      if (!routeKeys(route).some((key) => AGENT_ROUTES.has(key))) return;
      route.preHandler = [limit, ...hookList(route.preHandler)];
    });
  },
  { name: 'agentRateLimit', dependencies: ['services'] },
);
