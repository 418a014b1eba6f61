import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../errors';
import type { SessionInfo } from '../services/auth/sessionStore';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller, set for every non-public /api route. */
    auth: SessionInfo | null;
  }
  interface FastifyContextConfig {
    /** Routes reachable without a session: sign-in, health, docs, payment webhooks. */
    public?: boolean;
  }
}

/** Paths served by plugins whose routes cannot carry our `public` flag. */
const PUBLIC_PREFIXES = ['/api/docs'];

export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-da_session' : 'da_session';
}

/** The signed-in caller; only call it in routes that are not public. */
export function authOf(request: FastifyRequest): SessionInfo {
  if (!request.auth) throw unauthorized();
  return request.auth;
}

/**
 * Authenticates every /api request from the session cookie. The Installation-Id header only
 * selects among the caller's installations: one that is not the session's answers 401.
 */
export const sessionPlugin = fp(
  async (app) => {
    const cookieName = sessionCookieName(app.config.secureCookies);
    app.decorateRequest('auth', null);

    app.addHook('onRequest', async (request: FastifyRequest) => {
      if (!request.url.startsWith('/api/')) return;
      if (request.routeOptions.config?.public || PUBLIC_PREFIXES.some((p) => request.url.startsWith(p))) return;
      if (request.is404) return; // unknown route: the not-found handler answers 404
      const session = await app.services.sessions.resolve(request.cookies[cookieName]);
      if (!session) throw unauthorized();
      const header = request.headers['installation-id'];
      if (header !== undefined && String(header).trim() !== String(session.publicInstallationId)) {
        throw unauthorized('Installation-Id does not match the signed-in session');
      }
      request.auth = session;
    });

    app.decorate('setSessionCookie', (reply: FastifyReply, token: string) => {
      reply.setCookie(cookieName, token, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: app.config.secureCookies,
        maxAge: Math.floor(app.config.sessionAbsoluteMs / 1000),
      });
    });
    app.decorate('clearSessionCookie', (reply: FastifyReply) => {
      reply.clearCookie(cookieName, { path: '/', httpOnly: true, sameSite: 'lax', secure: app.config.secureCookies });
    });
    app.decorate('sessionToken', (request: FastifyRequest) => request.cookies[cookieName]);
  },
  { name: 'session', dependencies: ['services'] },
);

declare module 'fastify' {
  interface FastifyInstance {
    setSessionCookie(reply: FastifyReply, token: string): void;
    clearSessionCookie(reply: FastifyReply): void;
    sessionToken(request: FastifyRequest): string | undefined;
  }
}
