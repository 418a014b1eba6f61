import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type {} from '@fastify/websocket';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../errors';
import { cookieValue } from './cookieValue';
import type { SessionInfo } from '../services/auth/sessionStore';
import { hookList } from './routeHooks';

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

/** Whether the request's Installation-Id header (optional) names the session's installation. */
function installationMatches(headers: FastifyRequest['headers'], session: SessionInfo): boolean {
  const header = headers['installation-id'];
  return header === undefined || String(header).trim() === String(session.publicInstallationId);
}

/**
 * Authenticates every /api request from the session cookie. The Installation-Id header only
 * selects among the caller's installations: one that is not the session's answers 401.
 */
export const sessionPlugin = fp(
  async (app) => {
    const cookieName = sessionCookieName(app.config.secureCookies);
    app.decorateRequest('auth', null);

    /** The long-lived connections (terminal sockets, event streams) of each session: closed at sign-out. */
    const live = new Map<string, Set<Socket>>();
    const stopListening = app.services.sessions.onDestroyed((sessionId) => {
      for (const socket of live.get(sessionId) ?? []) socket.destroy();
      live.delete(sessionId);
    });
    app.addHook('onClose', async () => stopListening());
    app.decorate('holdUntilSignOut', (request: FastifyRequest, response?: ServerResponse) => {
      const socket = request.raw.socket as Socket | undefined;
      const sessionId = request.auth?.sessionId;
      if (!socket || !sessionId || socket.destroyed) return;
      let sockets = live.get(sessionId);
      if (!sockets) live.set(sessionId, (sockets = new Set()));
      sockets.add(socket);
      const release = (): void => {
        socket.off('close', release);
        sockets.delete(socket);
        if (!sockets.size && live.get(sessionId) === sockets) live.delete(sessionId);
      };
      socket.once('close', release);
      // An event stream that ends hands its keep-alive socket back (a proxy may carry others' requests on it).
      response?.once('close', release);
    });

    const { sessions } = app.services;
    /** Accepts the session as the caller, after the Installation-Id check; throws 401 otherwise. */
    const admit = (request: FastifyRequest, session: SessionInfo | null): void => {
      if (!session) throw unauthorized();
      if (!installationMatches(request.headers, session)) throw unauthorized('Installation-Id does not match the signed-in session');
      request.auth = session;
      // A terminal socket is this session's alone (unlike a keep-alive socket a proxy may share).
      if (request.ws) app.holdUntilSignOut(request);
    };
    /**
     * A session held in memory (every hot poll's) is admitted at once, without a promise; one that is
     * not is read from the database first.
     */
    const authenticate = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
      const token = request.cookies[cookieName];
      const known = sessions.resolveFromMemory(token);
      if (known) {
        admit(request, known);
        return done();
      }
      sessions.resolve(token).then((session) => {
        try {
          admit(request, session);
        } catch (err) {
          return done(err as Error);
        }
        done();
      }, done);
    };
    // Decided once per route, not per request: every /api route that is not public authenticates.
    // Unknown routes get no hook (the not-found handler answers 404), as do the app's pages.
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/api/') || route.config?.public || PUBLIC_PREFIXES.some((p) => route.url.startsWith(p))) return;
      route.onRequest = [authenticate, ...hookList(route.onRequest)];
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
    app.decorate('sessionFromMemory', (request: Pick<FastifyRequest, 'cookies' | 'headers'>) => {
      const session = sessions.resolveFromMemory(request.cookies[cookieName]);
      return session && installationMatches(request.headers, session) ? session : null;
    });
    app.decorate('sessionFromCookieHeader', (cookieHeader: string | undefined, headers: FastifyRequest['headers']) => {
      const session = sessions.resolveFromMemory(cookieHeader === undefined ? undefined : cookieValue(cookieHeader, cookieName));
      return session && installationMatches(headers, session) ? session : null;
    });
  },
  { name: 'session', dependencies: ['services'] },
);

declare module 'fastify' {
  interface FastifyInstance {
    setSessionCookie(reply: FastifyReply, token: string): void;
    clearSessionCookie(reply: FastifyReply): void;
    sessionToken(request: FastifyRequest): string | undefined;
    /**
     * The caller when memory can admit them at once (their session held here, their Installation-Id
     * its installation's), else null: then `authenticate` decides, querying if need be. It reads only
     * the request's cookies and headers: the hot polls ask it before Fastify has made a request.
     */
    sessionFromMemory(request: Pick<FastifyRequest, 'cookies' | 'headers'>): SessionInfo | null;
    /**
     * `sessionFromMemory` from the request's Cookie header as sent, before any parser has run: only the
     * session cookie is read (`cookieValue`, as the cookie parser reads it), no object of every cookie.
     */
    sessionFromCookieHeader(cookieHeader: string | undefined, headers: FastifyRequest['headers']): SessionInfo | null;
    /** Closes the request's connection when its session is signed out on any replica (sockets, event streams). */
    holdUntilSignOut(request: FastifyRequest, response?: ServerResponse): void;
  }
}
