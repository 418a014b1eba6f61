import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GithubCallbackQuery, LocalLoginBody, LocalLoginResponse, UserProfile } from '../../../shared/api/auth';
import { ErrorResponse } from '../../../shared/api/common';
import { HttpError, notFound, unauthorized } from '../../errors';
import { authOf } from '../../plugins/session';
import type { IdentityProvider } from '../../services/auth/identityProvider';

/**
 * Sign-in, profile and sign-out under /api/github (the documents' paths). The identity provider
 * decides how a person proves who they are; the session cookie is ours either way.
 */
export const authRoutes: FastifyPluginAsyncTypebox<{ provider: IdentityProvider }> = async (app, { provider }) => {
  const { auth, sessions } = app.services;

  app.get('/github/login', { config: { public: true }, schema: { tags: ['auth'] } }, async (_request, reply) =>
    reply.redirect(await provider.beginLogin()),
  );

  app.post(
    '/github/local-login',
    {
      config: { public: true, rateLimit: { max: app.config.loginRateLimitPerMinute, timeWindow: '1 minute' } },
      schema: { tags: ['auth'], body: LocalLoginBody, response: { 200: LocalLoginResponse, 400: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse } },
    },
    async (request, reply) => {
      if (provider.kind !== 'local') throw notFound('Local sign-in is disabled: this server signs in with GitHub');
      const identity = await auth.signInLocal(request.body.login);
      app.setSessionCookie(reply, await sessions.create(identity.userId, identity.installationId));
      return { installation_id: identity.publicInstallationId };
    },
  );

  app.get(
    '/github/callback',
    {
      config: { public: true, rateLimit: { max: app.config.loginRateLimitPerMinute, timeWindow: '1 minute' } },
      schema: { tags: ['auth'], querystring: GithubCallbackQuery },
    },
    async (request, reply) => {
      if (!provider.completeLogin) throw notFound('GitHub sign-in is not configured on this server');
      // Installed from GitHub's own page: no sign-in of ours is pending, so start one.
      if (!request.query.state && request.query.setup_action === 'install') return reply.redirect('/api/github/login');
      try {
        const identity = await auth.signInGithub(await provider.completeLogin(request.query));
        app.setSessionCookie(reply, await sessions.create(identity.userId, identity.installationId));
        return reply.redirect(`/github-success?installation_id=${identity.publicInstallationId}`);
      } catch (err) {
        if (err instanceof HttpError) throw err;
        request.log.warn({ err }, 'GitHub sign-in failed');
        throw unauthorized('GitHub sign-in failed');
      }
    },
  );

  app.get('/github/user', { schema: { tags: ['auth'], response: { 200: UserProfile, 401: ErrorResponse } } }, async (request) => {
    const profile = await auth.profile(authOf(request).userId);
    if (!profile) throw unauthorized();
    return profile;
  });

  app.post('/github/logout', { config: { public: true }, schema: { tags: ['auth'] } }, async (request, reply) => {
    await sessions.destroy(app.sessionToken(request));
    app.clearSessionCookie(reply);
    return reply.status(204).send();
  });

  /** The hidden page the client loads for a second after sign-out (part 1 section 7). */
  app.get('/github/provider-logout', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send('<!doctype html><title>Signed out</title>'),
  );
};
