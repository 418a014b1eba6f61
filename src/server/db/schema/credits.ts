import { sql } from 'drizzle-orm';
import { check, index, integer, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { installations, tokenUsage, users } from './core';

/**
 * Credits are a ledger, not a counter. Credits belong to the installation (the tenant that owns the
 * projects whose model calls spend them), so a GitHub organisation's members share one balance.
 *
 * `credit_accounts.balance` is a cached sum: it is only ever changed in the same transaction that
 * writes or completes a ledger row, under a row lock on the account (`SELECT … FOR UPDATE`), so it
 * always equals the sum of the completed rows of `credit_transactions` (add positive, use and
 * refund negative).
 */

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
/** Dollars with 8 decimals: model calls cost fractions of a cent. */
const dollars = (name: string) => numeric(name, { precision: 18, scale: 8 });

export const creditAccounts = pgTable('credit_accounts', {
  installationId: integer('installation_id')
    .primaryKey()
    .references(() => installations.id, { onDelete: 'cascade' }),
  balance: dollars('balance').notNull().default(sql`0`),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Card payments, from the click on Pay to the provider's verdict. The id is public (it travels to the provider). */
export const creditPurchases = pgTable(
  'credit_purchases',
  {
    /** Random UUID: unguessable, sent as `metadata.purchase_id`. */
    id: text('id').primaryKey(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 'dodo' or 'local' (the local test checkout). */
    provider: text('provider').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    /** pending, completed, failed, cancelled, refunded */
    status: text('status').notNull(),
    /** The provider's payment id once paid: one payment credits one purchase. */
    providerPaymentId: text('provider_payment_id'),
    checkoutSessionId: text('checkout_session_id'),
    /** Key of the test checkout's form token (HMAC of the session), random per purchase. */
    formKey: text('form_key').notNull(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('credit_purchases_provider_payment_uq').on(t.providerPaymentId),
    index('credit_purchases_installation_idx').on(t.installationId, t.createdAt),
    check('credit_purchases_amount_positive', sql`${t.amountCents} > 0`),
  ],
);

export const creditTransactions = pgTable(
  'credit_transactions',
  {
    id: serial('id').primaryKey(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    /** add, use, refund */
    type: text('type').notNull(),
    /** Always positive; the type gives the sign. */
    amount: dollars('amount').notNull(),
    /** pending, completed, failed: only completed rows count towards the balance. */
    status: text('status').notNull(),
    /** signup, local, dodo, usage */
    paymentMethod: text('payment_method').notNull(),
    description: text('description'),
    purchaseId: text('purchase_id').references(() => creditPurchases.id, { onDelete: 'set null' }),
    tokenUsageId: integer('token_usage_id').references(() => tokenUsage.id, { onDelete: 'set null' }),
    /** The provider's id of the event this row records (a refund id): written once. */
    externalId: text('external_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('credit_transactions_installation_idx').on(t.installationId, t.createdAt),
    uniqueIndex('credit_transactions_external_uq').on(t.externalId),
    index('credit_transactions_purchase_idx').on(t.purchaseId),
    check('credit_transactions_amount_nonnegative', sql`${t.amount} >= 0`),
  ],
);

/** Webhook deliveries already handled (Standard Webhooks `webhook-id`): a redelivery changes nothing. */
export const paymentWebhookEvents = pgTable('payment_webhook_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
