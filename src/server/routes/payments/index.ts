import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { ErrorResponse } from '../../../shared/api/common';
import { DodoWebhookBody, DodoWebhookHeaders, PaymentLookupQuery, PaymentRecord, WebhookAck } from '../../../shared/api/payments';
import { badRequest, forbidden, unauthorized } from '../../errors';
import { authOf } from '../../plugins/session';
import { renderTestCheckoutPage, TEST_CHECKOUT_CSP } from '../../services/credits/testCheckoutPage';

const PurchaseParams = Type.Object({ purchaseId: Type.String({ pattern: '^[0-9a-f-]{36}$' }) });
const CheckoutForm = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });

/**
 * Payment callbacks under /api/payments: the local test checkout (signed-in, same-origin forms) and the
 * Dodo Payments webhook (public, trusted only through its Standard Webhooks signature).
 */
export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { payments } = app.services;

  /** The caller's record of one payment (the payment success page): 404 for anyone else's. */
  app.get(
    '/payments/lookup',
    { schema: { tags: ['payments'], querystring: PaymentLookupQuery, response: { 200: PaymentRecord, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse } } },
    async (request) => payments.lookup(authOf(request).installationId, request.query),
  );

  if (payments.checkoutKind === 'local') {
    const checkoutRoutes: FastifyPluginAsyncTypebox = async (checkout) => {
      checkout.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(String(body))));
      });

      /** Forms post from our own page only: a browser's Origin, when sent, must be ours. */
      checkout.addHook('preHandler', async (request) => {
        const origin = request.headers.origin;
        if (request.method === 'POST' && origin !== undefined && origin !== app.config.publicUrl && origin !== `${request.protocol}://${request.host}`) {
          throw forbidden('Cross-origin checkout form refused');
        }
      });

      const sessionToken = (request: FastifyRequest): string => {
        const token = app.sessionToken(request);
        if (!token) throw unauthorized();
        return token;
      };

      checkout.get(
        '/payments/test-checkout/:purchaseId',
        { schema: { tags: ['payments'], params: PurchaseParams } },
        async (request, reply) => {
          const { purchase, token } = await payments.testCheckout(authOf(request).installationId, request.params.purchaseId, sessionToken(request));
          return reply
            .header('content-security-policy', TEST_CHECKOUT_CSP)
            .header('cache-control', 'no-store')
            .type('text/html; charset=utf-8')
            .send(renderTestCheckoutPage({ purchaseId: purchase.id, amountCents: purchase.amountCents, status: purchase.status, token }));
        },
      );

      for (const action of ['pay', 'cancel'] as const) {
        checkout.post(
          `/payments/test-checkout/:purchaseId/${action}`,
          { schema: { tags: ['payments'], params: PurchaseParams, body: CheckoutForm, response: { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse } } },
          async (request, reply) => {
            const input = {
              installationId: authOf(request).installationId,
              purchaseId: request.params.purchaseId,
              sessionToken: sessionToken(request),
              token: request.body.token,
            };
            const { redirect } = action === 'pay' ? await payments.payTestCheckout(input) : await payments.cancelTestCheckout(input);
            return reply.redirect(redirect, 303);
          },
        );
      }
    };
    await app.register(checkoutRoutes);
  }

  const webhookKey = app.config.payments.webhookKey;
  if (webhookKey) {
    const verifier = new Webhook(webhookKey);
    const webhookRoutes: FastifyPluginAsyncTypebox = async (hook) => {
      // The signature covers the exact bytes sent: keep the body as a string for this route only.
      hook.removeContentTypeParser('application/json');
      hook.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_request, body, done) => done(null, body));

      hook.post(
        '/payments/webhook',
        {
          config: { public: true },
          schema: { tags: ['payments'], headers: DodoWebhookHeaders, response: { 200: WebhookAck, 400: ErrorResponse, 401: ErrorResponse } },
        },
        async (request) => {
          const raw = typeof request.body === 'string' ? request.body : '';
          try {
            verifier.verify(raw, {
              'webhook-id': request.headers['webhook-id'],
              'webhook-timestamp': request.headers['webhook-timestamp'],
              'webhook-signature': request.headers['webhook-signature'],
            });
          } catch (err) {
            if (err instanceof WebhookVerificationError) {
              request.log.warn({ reason: err.message }, 'payment webhook refused');
              throw unauthorized(`Invalid webhook: ${err.message}`);
            }
            throw err;
          }
          let event: unknown;
          try {
            event = JSON.parse(raw);
          } catch {
            throw badRequest('Malformed JSON in request body');
          }
          if (!Value.Check(DodoWebhookBody, event)) throw badRequest('Unexpected webhook payload');
          await payments.handleWebhook(request.headers['webhook-id'], event);
          return { received: true };
        },
      );
    };
    await app.register(webhookRoutes);
  }
};
