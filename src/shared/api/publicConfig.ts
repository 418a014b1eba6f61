import { Type, type Static } from 'typebox';
import { TokenRates } from './costs';

/**
 * GET /api/public-config: what the public pages show from the server's configuration, without a
 * session — the support address (SUPPORT_EMAIL) and the token prices the meter charges.
 */
export const PublicConfigResponse = Type.Object({
  support_email: Type.String(),
  rates: TokenRates,
});
export type PublicConfigResponse = Static<typeof PublicConfigResponse>;
