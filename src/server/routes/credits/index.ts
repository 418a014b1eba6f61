import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { CreditsResponse, PaymentLinkResponse, TransactionList } from '../../../shared/api/credits';
import { HttpError } from '../../errors';
import { NotModified, sendSnapshot } from '../../plugins/hotPoll';
import { authOf } from '../../plugins/session';

/**
 * The body as received: the amount rule (a JSON number, $1 to $10,000, whole cents) is checked by the
 * service, so that a bad amount answers the spec's own message rather than a schema message.
 */
const CreatePaymentRequest = Type.Object({ amount: Type.Optional(Type.Unknown()) });

/** The documents' account and credits calls (part 1 section 7) under /api/user. */
export const creditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { credits, payments } = app.services;

  app.get(
    '/user/credits',
    {
      schema: {
        tags: ['credits'],
        description: 'Polled by every open tab: answered from memory with a weak ETag; 304 when If-None-Match matches.',
        response: { 200: CreditsResponse, 304: NotModified, 401: ErrorResponse },
      },
      config: { snapshotInMemory: (_request, auth) => credits.balances.peek(auth.installationId) },
    },
    async (request, reply) => sendSnapshot(request, reply, await credits.balances.get(authOf(request).installationId)),
  );

  app.get('/user/transactions', { schema: { tags: ['credits'], response: { 200: TransactionList, 401: ErrorResponse } } }, async (request) =>
    credits.transactions(authOf(request).installationId),
  );

  app.post(
    '/user/credits/create-dodo-payment',
    {
      config: {
        rateLimit: {
          max: app.config.payments.rateLimitPerMinute,
          timeWindow: '1 minute',
          keyGenerator: (request) => `payment:${request.auth?.installationId ?? request.ip}`,
        },
      },
      schema: {
        tags: ['credits'],
        body: CreatePaymentRequest,
        response: { 200: PaymentLinkResponse, 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse, 502: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { installationId, userId } = authOf(request);
      try {
        return await payments.createPayment({ installationId, userId, amount: request.body.amount });
      } catch (err) {
        // The provider failed, not the client or us: a gateway error with a message the dialog shows.
        if (err instanceof HttpError && err.statusCode === 502) return reply.status(502).send({ detail: err.message });
        throw err;
      }
    },
  );
};
