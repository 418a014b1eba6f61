import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PublicConfigResponse } from '../../../shared/api/publicConfig';

/** The public pages' configuration: no session, nothing secret (the pricing page shows the meter's rates). */
export const publicConfigRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/public-config',
    { config: { public: true }, schema: { tags: ['public'], response: { 200: PublicConfigResponse } } },
    async () => ({ support_email: app.config.supportEmail, rates: app.services.meter.rates() }),
  );
};
