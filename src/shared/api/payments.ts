import { Type, type Static } from 'typebox';

/**
 * Dodo Payments webhooks (Standard Webhooks). The route must verify `webhook-signature` over the raw
 * body and reject stale `webhook-timestamp`s before trusting anything here; these schemas only check the
 * fields the server reads and let every other field through, because the provider adds fields freely.
 */

/** Event type that credits an account; every other type is acknowledged and ignored. */
export const DODO_PAYMENT_SUCCEEDED = 'payment.succeeded';
export const DODO_PAYMENT_FAILED = 'payment.failed';
export const DODO_PAYMENT_CANCELLED = 'payment.cancelled';
/** A refund went through: the refunded dollars leave the balance as a `refund` transaction. */
export const DODO_REFUND_SUCCEEDED = 'refund.succeeded';

/** Headers of POST /api/payments/webhook (Fastify lower-cases header names). */
export const DodoWebhookHeaders = Type.Object({
  'webhook-id': Type.String({ minLength: 1, maxLength: 200 }),
  'webhook-signature': Type.String({ minLength: 1, maxLength: 2_000 }),
  'webhook-timestamp': Type.String({ pattern: '^[0-9]{1,12}$' }),
});
export type DodoWebhookHeaders = Static<typeof DodoWebhookHeaders>;

/** POST /api/payments/webhook: the body as Dodo sends it. `total_amount` is in the smallest currency unit (cents). */
export const DodoWebhookBody = Type.Object({
  type: Type.String({ maxLength: 100 }),
  business_id: Type.Optional(Type.String({ maxLength: 200 })),
  timestamp: Type.Optional(Type.String({ maxLength: 100 })),
  data: Type.Object({
    payload_type: Type.Optional(Type.String({ maxLength: 100 })),
    payment_id: Type.Optional(Type.String({ maxLength: 200 })),
    total_amount: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Refund events: the refund's id and amount (cents; null or absent means the whole payment). */
    refund_id: Type.Optional(Type.String({ maxLength: 200 })),
    amount: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    currency: Type.Optional(Type.Union([Type.String({ maxLength: 10 }), Type.Null()])),
    status: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    metadata: Type.Optional(
      Type.Object({
        /** Our order id, set when the checkout session was created. */
        purchase_id: Type.Optional(Type.String({ maxLength: 200 })),
      }),
    ),
  }),
});
export type DodoWebhookBody = Static<typeof DodoWebhookBody>;

/** Answer of POST /api/payments/webhook (2xx tells Dodo not to retry). */
export const WebhookAck = Type.Object({ received: Type.Boolean() });
export type WebhookAck = Static<typeof WebhookAck>;

/**
 * Query of the app's payment success page (/credits/success, /payment-success): the amount we put in the
 * return URL, and the `payment_id` and `status` the provider appends. Read by the client only.
 */
export const PaymentSuccessQuery = Type.Object({
  amount: Type.Optional(Type.String({ maxLength: 20 })),
  payment_id: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.String({ maxLength: 50 })),
});
export type PaymentSuccessQuery = Static<typeof PaymentSuccessQuery>;

/** GET /api/payments/lookup: our purchase id (`purchase`, in the return address) or the provider's payment id. */
export const PaymentLookupQuery = Type.Object(
  {
    purchase: Type.Optional(Type.String({ pattern: '^[0-9a-f-]{36}$' })),
    payment_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type PaymentLookupQuery = Static<typeof PaymentLookupQuery>;

/**
 * The server's record of one of the caller's payments: `pending` until the provider confirms it (then
 * `completed`, the amount credited), or `failed`, `cancelled`, `refunded`. Never the address's amount.
 */
export const PaymentRecord = Type.Object({
  purchase_id: Type.String(),
  payment_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed'), Type.Literal('cancelled'), Type.Literal('refunded')]),
  /** Dollars. */
  amount: Type.Number({ minimum: 0 }),
  currency: Type.String(),
  created_at: Type.String(),
  completed_at: Type.Union([Type.String(), Type.Null()]),
});
export type PaymentRecord = Static<typeof PaymentRecord>;
