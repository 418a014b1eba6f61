import { Type, type Static } from 'typebox';
import { IdParam } from './common';
import { INPUT_LIMITS } from '../constants/foundation';

/** Login names follow GitHub's rule: 1–39 letters, digits and hyphens. */
export const LOGIN_PATTERN = INPUT_LIMITS.loginPattern;

export const LocalLoginBody = Type.Object({ login: Type.String({ pattern: LOGIN_PATTERN }) });
export type LocalLoginBody = Static<typeof LocalLoginBody>;

export const LocalLoginResponse = Type.Object({ installation_id: Type.Integer() });
export type LocalLoginResponse = Static<typeof LocalLoginResponse>;

/** GET /api/github/user */
export const UserProfile = Type.Object({
  avatar_url: Type.String(),
  login: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
});
export type UserProfile = Static<typeof UserProfile>;

/** GET /api/github/callback (GitHub App provider) */
export const GithubCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 200 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  installation_id: Type.Optional(IdParam),
  setup_action: Type.Optional(Type.String({ maxLength: 50 })),
});
export type GithubCallbackQuery = Static<typeof GithubCallbackQuery>;
