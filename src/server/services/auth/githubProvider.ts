import { createHash, randomBytes } from 'node:crypto';
import { eq, lt } from 'drizzle-orm';
import { Octokit } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { request as octokitRequest } from '@octokit/request';
import type { GithubAppConfig } from '../../config';
import type { Db } from '../../db/client';
import { oauthStates } from '../../db/schema';
import { unauthorized } from '../../errors';
import type { GithubCallbackQuery } from '../../../shared/api/auth';
import type { GithubIdentity } from './authService';
import type { IdentityProvider } from './identityProvider';

/** How long a sign-in started with `beginLogin` may take before its `state` is refused. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** Every call to GitHub during one sign-in must answer within this time. */
const GITHUB_TIMEOUT_MS = 15_000;
const USER_AGENT = 'devops-agents';

/** The `@octokit/app` stack's REST client with pagination, used with the user's token. */
const UserOctokit = Octokit.plugin(paginateRest);

export interface GithubProviderOptions {
  db: Db;
  github: GithubAppConfig;
  /** The clock; tests move it. */
  now?: () => Date;
}

/** 32 random bytes, base64url: 256 bits for `state`, a 43-character PKCE code_verifier (RFC 7636). */
const randomToken = (): string => randomBytes(32).toString('base64url');

/** The PKCE S256 challenge of a verifier: base64url(sha256(verifier)). */
export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/**
 * Signs people in with a GitHub App's user authorization (OAuth web flow with PKCE), using the
 * `@octokit/app` stack (`@octokit/request`, `@octokit/core` with pagination). Every call goes to the
 * configured hosts: `github.webUrl` for the OAuth endpoints, `github.apiUrl` for the REST API.
 *
 * **Where `beginLogin` sends the browser.** Always to the OAuth authorize URL,
 * `${webUrl}/login/oauth/authorize?client_id=…&state=…&code_challenge=…&code_challenge_method=S256`,
 * not to the install URL `${webUrl}/apps/${slug}/installations/new?state=…`. A returning user must
 * be able to sign in without reinstalling, and the authorize URL works for everyone: GitHub asks a
 * first-time user to authorize the app and sends `code` to the app's configured callback (no
 * `redirect_uri` is passed, so the callback registered with the app is used). A user who has
 * authorized but never installed the app gets a 401 from `completeLogin` whose message names the
 * install URL ({@link GithubProvider.installUrl}); with "Request user authorization (OAuth) during
 * installation" enabled, installing from that page brings them back to the callback with `code` and
 * `installation_id`, and they sign in from `GET /api/github/login` as usual.
 *
 * **`state` and PKCE.** `beginLogin` stores a random `state` (256 bits) and a PKCE code_verifier in
 * `oauth_states` for {@link OAUTH_STATE_TTL_MS}; `completeLogin` deletes the row as it reads it, so a
 * state works once, and sends the verifier with the code exchange.
 *
 * **Which installation.** `GET /user/installations` with the user-to-server token lists the
 * installations of this app that the user can access. An `installation_id` in the callback is
 * accepted only if it is listed; without one, the first listed installation of this app is used.
 *
 * Failures a person can fix (missing or stale `state`, an installation that is not theirs, no
 * installation) throw HttpError 401 with a message; anything GitHub answers wrongly throws a plain
 * error, which the callback route logs and answers as 401 'GitHub sign-in failed'.
 */
export interface GithubProvider extends IdentityProvider {
  kind: 'github';
  completeLogin(query: GithubCallbackQuery): Promise<GithubIdentity>;
  /** The page where a person installs the app, optionally carrying a `state`. */
  installUrl(state?: string): string;
}

export function createGithubProvider({ db, github, now = () => new Date() }: GithubProviderOptions): GithubProvider {
  const appId = Number(github.appId);
  const installUrl = (state?: string): string => {
    const url = new URL(`${github.webUrl}/apps/${encodeURIComponent(github.slug)}/installations/new`);
    if (state) url.searchParams.set('state', state);
    return url.toString();
  };

  /** Exchanges the callback's code for a user-to-server token; GitHub answers errors with 200 and `error`. */
  async function exchangeCode(code: string, codeVerifier: string, signal: AbortSignal): Promise<string> {
    const response = await octokitRequest('POST /login/oauth/access_token', {
      baseUrl: github.webUrl,
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
      client_id: github.clientId,
      client_secret: github.clientSecret,
      code,
      code_verifier: codeVerifier,
      request: { signal },
    });
    const data = response.data as { access_token?: string; error?: string; error_description?: string };
    if (data.error || typeof data.access_token !== 'string' || data.access_token === '') {
      throw new Error(`GitHub refused the code exchange: ${data.error ?? 'no access_token'}${data.error_description ? ` (${data.error_description})` : ''}`);
    }
    return data.access_token;
  }

  return {
    kind: 'github',
    installUrl,

    async beginLogin() {
      const state = randomToken();
      const codeVerifier = randomToken();
      const at = now();
      await db.delete(oauthStates).where(lt(oauthStates.expiresAt, at));
      await db.insert(oauthStates).values({ state, codeVerifier, expiresAt: new Date(at.getTime() + OAUTH_STATE_TTL_MS) });
      const url = new URL(`${github.webUrl}/login/oauth/authorize`);
      url.searchParams.set('client_id', github.clientId);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', pkceChallenge(codeVerifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return url.toString();
    },

    async completeLogin(query) {
      const { code, state } = query;
      if (!code || !state) throw unauthorized('GitHub sign-in failed: the callback is missing its code or state');
      const [pending] = await db.delete(oauthStates).where(eq(oauthStates.state, state)).returning();
      if (!pending || pending.expiresAt.getTime() <= now().getTime()) {
        throw unauthorized('GitHub sign-in failed: this sign-in link is unknown, expired or already used; sign in again');
      }

      const signal = AbortSignal.timeout(GITHUB_TIMEOUT_MS);
      const token = await exchangeCode(code, pending.codeVerifier, signal);
      const octokit = new UserOctokit({ auth: token, baseUrl: github.apiUrl, userAgent: USER_AGENT, request: { signal } });
      const { data: user } = await octokit.request('GET /user');
      const listed = await octokit.paginate('GET /user/installations', { per_page: 100 });
      const ours = listed.filter((installation) => Number(installation.app_id) === appId);

      let installationId: number;
      if (query.installation_id !== undefined) {
        const wanted = Number(query.installation_id);
        if (!ours.some((installation) => Number(installation.id) === wanted)) {
          throw unauthorized(`GitHub sign-in failed: installation ${wanted} is not one of ${user.login}'s installations of this app`);
        }
        installationId = wanted;
      } else {
        const first = ours[0];
        if (!first) throw unauthorized(`Install the GitHub App first: ${installUrl()}`);
        installationId = Number(first.id);
      }

      return {
        githubUserId: Number(user.id),
        login: user.login,
        name: user.name ?? null,
        avatarUrl: user.avatar_url || null,
        installationId,
      };
    },
  };
}
