import { Type, type Static } from 'typebox';
import { CREDIT_LIMITS, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../constants/credits';
import { Timestamp } from './common';

/**
 * GET /api/user/credits: the balance in dollars (1 credit = 1 USD); `test_credits`, present when some of
 * it came from the local test checkout (no money moved): how much of the balance, at most, is test credit.
 */
export const CreditsResponse = Type.Object({ credits_balance: Type.Number(), test_credits: Type.Optional(Type.Number({ minimum: 0 })) });
export type CreditsResponse = Static<typeof CreditsResponse>;

export const TransactionType = Type.Enum(TRANSACTION_TYPES);
export type TransactionType = Static<typeof TransactionType>;

/** Transaction statuses: `pending` until the payment provider confirms, then `completed` or `failed`. */
export const TransactionStatus = Type.Enum(TRANSACTION_STATUSES);
export type TransactionStatus = Static<typeof TransactionStatus>;

/** One line of GET /api/user/transactions; `amount` is in dollars and always positive, the type gives the sign. */
export const Transaction = Type.Object({
  id: Type.Integer(),
  transaction_type: TransactionType,
  amount: Type.Number({ minimum: 0 }),
  /** 'signup' (the starting credit), 'dodo', 'local' (the local test checkout) or 'usage' for agent spending. */
  payment_method: Type.String(),
  status: TransactionStatus,
  created_at: Timestamp,
  description: Type.Optional(Type.String()),
});
export type Transaction = Static<typeof Transaction>;

/** GET /api/user/transactions: newest first. */
export const TransactionList = Type.Array(Transaction);
export type TransactionList = Static<typeof TransactionList>;

/**
 * POST /api/user/credits/create-dodo-payment: `amount` in dollars, $1 to $10,000. The server rounds it to
 * whole cents; out-of-range amounts answer 400 with the texts of `CREDIT_ERRORS`.
 */
export const CreatePaymentBody = Type.Object(
  { amount: Type.Number({ minimum: CREDIT_LIMITS.minAmount, maximum: CREDIT_LIMITS.maxAmount }) },
  { additionalProperties: false },
);
export type CreatePaymentBody = Static<typeof CreatePaymentBody>;

/** Answer of POST /api/user/credits/create-dodo-payment: the checkout page to open in a new tab. */
export const PaymentLinkResponse = Type.Object({ payment_link: Type.String() });
export type PaymentLinkResponse = Static<typeof PaymentLinkResponse>;
