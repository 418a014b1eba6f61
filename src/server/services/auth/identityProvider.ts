import type { GithubCallbackQuery } from '../../../shared/api/auth';
import type { GithubIdentity } from './authService';

/**
 * Who vouches for a person: the local provider (a typed login name, the default) or a GitHub App.
 * Chosen once at start from configuration.
 */
export interface IdentityProvider {
  kind: 'local' | 'github';
  /** Where `GET /api/github/login` sends the browser. */
  beginLogin(): Promise<string>;
  /** GitHub only: checks `state`, exchanges the code, confirms the installation belongs to the user. */
  completeLogin?(query: GithubCallbackQuery): Promise<GithubIdentity>;
}

/** The local provider's sign-in page is a client route. */
export const LOCAL_SIGNIN_PATH = '/signin';

export function createLocalProvider(): IdentityProvider {
  return { kind: 'local', beginLogin: async () => LOCAL_SIGNIN_PATH };
}
