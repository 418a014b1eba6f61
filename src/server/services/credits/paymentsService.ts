import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../../db/client';
import { creditPurchases, creditTransactions, paymentWebhookEvents } from '../../db/schema';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../../errors';
import type { PaymentLinkResponse } from '../../../shared/api/credits';
import {
  DODO_PAYMENT_CANCELLED,
  DODO_PAYMENT_FAILED,
  DODO_PAYMENT_SUCCEEDED,
  DODO_REFUND_SUCCEEDED,
  type DodoWebhookBody,
  type PaymentRecord,
} from '../../../shared/api/payments';
import { creditAmountValueError, TEST_CHECKOUT_TEXT } from '../../../shared/constants/credits';
import type { CheckoutProvider } from './checkoutProvider';
import type { CreditsLedger } from './ledger';
import { centsToUnits } from './money';

export type PurchaseRow = typeof creditPurchases.$inferSelect;

/** What one provider event did; webhooks answer 2xx whatever it is, so that the provider stops retrying. */
export type CreditOutcome = 'credited' | 'already-credited' | 'duplicate-event' | 'unknown-purchase' | 'mismatch' | 'closed' | 'ignored';

export interface PaymentReport {
  purchaseId: string;
  providerPaymentId: string;
  amountCents: number;
  currency: string;
}

/** Where the test checkout's Pay leads: the app's payment success page with what was paid. */
export interface PaymentReturn {
  redirect: string;
}

const CURRENCY = 'USD';

/**
 * Card payments for credits: a purchase is recorded (with a pending `add` row in the ledger) before
 * the provider is asked for a checkout, and the ledger is credited only by `creditPurchase`, which the
 * webhook and the local test checkout share. A purchase is credited at most once: the purchase row is
 * locked, only an open purchase is credited, and the provider's payment id is unique.
 */
export function createPaymentsService({
  db,
  ledger,
  checkout,
  publicUrl,
  log,
}: {
  db: Db;
  ledger: CreditsLedger;
  checkout: CheckoutProvider;
  publicUrl: string;
  log: FastifyBaseLogger;
}) {
  const paymentMethod = checkout.kind;

  async function pendingAddOf(tx: Tx, purchaseId: string): Promise<number | undefined> {
    const [row] = await tx
      .select({ id: creditTransactions.id })
      .from(creditTransactions)
      .where(and(eq(creditTransactions.purchaseId, purchaseId), eq(creditTransactions.type, 'add')));
    return row?.id;
  }

  async function lockPurchase(tx: Tx, purchaseId: string): Promise<PurchaseRow | undefined> {
    const [row] = await tx.select().from(creditPurchases).where(eq(creditPurchases.id, purchaseId)).for('update');
    return row;
  }

  /** Records a webhook delivery id; false when it was handled before. */
  async function firstDelivery(tx: Tx, webhookId: string, type: string): Promise<boolean> {
    const inserted = await tx.insert(paymentWebhookEvents).values({ id: webhookId, type }).onConflictDoNothing().returning({ id: paymentWebhookEvents.id });
    return inserted.length > 0;
  }

  /** The crediting step shared by the webhook and the test checkout; runs inside the caller's transaction. */
  async function credit(tx: Tx, report: PaymentReport): Promise<CreditOutcome> {
    const purchase = await lockPurchase(tx, report.purchaseId);
    if (!purchase) return 'unknown-purchase';
    if (purchase.status === 'completed' || purchase.status === 'refunded') return 'already-credited';
    if (purchase.amountCents !== report.amountCents || purchase.currency !== report.currency.toUpperCase()) {
      log.warn({ purchaseId: purchase.id, expected: [purchase.amountCents, purchase.currency], got: [report.amountCents, report.currency] }, 'payment does not match its purchase: not credited');
      return 'mismatch';
    }
    const [other] = await tx.select({ id: creditPurchases.id }).from(creditPurchases).where(eq(creditPurchases.providerPaymentId, report.providerPaymentId));
    if (other) {
      log.warn({ purchaseId: purchase.id, paymentId: report.providerPaymentId, creditedPurchase: other.id }, 'payment id already credited another purchase');
      return 'already-credited';
    }
    await tx
      .update(creditPurchases)
      .set({ status: 'completed', providerPaymentId: report.providerPaymentId, completedAt: new Date() })
      .where(eq(creditPurchases.id, purchase.id));
    const transactionId = await pendingAddOf(tx, purchase.id);
    if (transactionId === undefined) throw new Error(`purchase ${purchase.id} has no ledger row`);
    return (await ledger.complete(tx, purchase.installationId, transactionId)) ? 'credited' : 'already-credited';
  }

  async function close(tx: Tx, purchaseId: string, status: 'failed' | 'cancelled'): Promise<CreditOutcome> {
    const purchase = await lockPurchase(tx, purchaseId);
    if (!purchase) return 'unknown-purchase';
    if (purchase.status !== 'pending') return 'closed';
    await tx.update(creditPurchases).set({ status }).where(eq(creditPurchases.id, purchaseId));
    const transactionId = await pendingAddOf(tx, purchaseId);
    if (transactionId !== undefined) await ledger.fail(tx, purchase.installationId, transactionId);
    return 'closed';
  }

  /** A refund the provider made: its dollars leave the balance once (the refund id is unique). */
  async function refund(tx: Tx, data: DodoWebhookBody['data']): Promise<CreditOutcome> {
    if (!data.payment_id || !data.refund_id) return 'ignored';
    const [found] = await tx.select({ id: creditPurchases.id }).from(creditPurchases).where(eq(creditPurchases.providerPaymentId, data.payment_id));
    const purchase = found && (await lockPurchase(tx, found.id));
    if (!purchase) return 'unknown-purchase';
    const cents = data.amount ?? purchase.amountCents;
    if ((data.currency && data.currency.toUpperCase() !== purchase.currency) || cents <= 0) return 'mismatch';
    const [refunded] = await tx
      .select({ cents: sql<string>`coalesce(sum(${creditTransactions.amount}), 0) * 100` })
      .from(creditTransactions)
      .where(and(eq(creditTransactions.purchaseId, purchase.id), eq(creditTransactions.type, 'refund')));
    if (Number(refunded?.cents ?? 0) + cents > purchase.amountCents) {
      log.warn({ purchaseId: purchase.id, refundId: data.refund_id }, 'refund exceeds what the purchase paid: not recorded');
      return 'mismatch';
    }
    const row = await ledger.post(tx, {
      installationId: purchase.installationId,
      type: 'refund',
      amountUnits: centsToUnits(cents),
      paymentMethod: purchase.provider === 'dodo' ? 'dodo' : 'local',
      description: `Refund of payment ${data.payment_id}`,
      purchaseId: purchase.id,
      externalId: `refund:${data.refund_id}`,
    });
    if (!row) return 'duplicate-event';
    await tx.update(creditPurchases).set({ status: 'refunded' }).where(eq(creditPurchases.id, purchase.id));
    return 'credited';
  }

  /**
   * Credits a purchase the provider reports paid, at most once, in one transaction. With a webhook
   * delivery id, a redelivery of the same event changes nothing either.
   */
  async function creditPurchase(report: PaymentReport, webhookId?: string): Promise<CreditOutcome> {
    return ledger.transaction(async (tx) => {
      if (webhookId && !(await firstDelivery(tx, webhookId, DODO_PAYMENT_SUCCEEDED))) return 'duplicate-event';
      return credit(tx, report);
    });
  }

  const formToken = (purchase: PurchaseRow, sessionToken: string): string =>
    createHmac('sha256', purchase.formKey).update(`${purchase.id}\n${sessionToken}`).digest('base64url');

  async function ownPurchase(installationId: number, purchaseId: string): Promise<PurchaseRow> {
    const [row] = await db
      .select()
      .from(creditPurchases)
      .where(and(eq(creditPurchases.id, purchaseId), eq(creditPurchases.installationId, installationId)));
    if (!row) throw notFound('Purchase not found');
    return row;
  }

  return {
    checkoutKind: checkout.kind,

    /**
     * The caller's record of a payment, by our purchase id or the provider's payment id: what the payment
     * success page shows (never the amount its address carries).
     *
     * @throws HttpError 400 without either id; 404 for one that is not the caller's installation's.
     */
    async lookup(installationId: number, ids: { purchase?: string; payment_id?: string }): Promise<PaymentRecord> {
      if (!ids.purchase && !ids.payment_id) throw badRequest('purchase or payment_id is required');
      const [row] = await db
        .select()
        .from(creditPurchases)
        .where(and(eq(creditPurchases.installationId, installationId), ids.purchase ? eq(creditPurchases.id, ids.purchase) : eq(creditPurchases.providerPaymentId, ids.payment_id!)));
      if (!row) throw notFound('No payment of yours has this id');
      return {
        purchase_id: row.id,
        payment_id: row.providerPaymentId,
        status: row.status as PaymentRecord['status'],
        amount: row.amountCents / 100,
        currency: row.currency,
        created_at: row.createdAt.toISOString(),
        completed_at: row.completedAt?.toISOString() ?? null,
      };
    },

    /**
     * Validates `amount` as the client does (a JSON number, $1 to $10,000, whole cents), records a pending
     * purchase and its pending `add` row, and asks the checkout provider for the page to pay on.
     *
     * @throws HttpError 400 with the spec's amount message; 502 when the provider cannot be reached.
     */
    async createPayment(input: { installationId: number; userId: number; amount: unknown }): Promise<PaymentLinkResponse> {
      if (checkout.refusal) throw forbidden(checkout.refusal);
      const invalid = creditAmountValueError(input.amount);
      if (invalid) throw badRequest(invalid);
      const amountCents = Math.round((input.amount as number) * 100);
      const purchaseId = randomUUID();
      await ledger.transaction(async (tx) => {
        await tx.insert(creditPurchases).values({
          id: purchaseId,
          installationId: input.installationId,
          userId: input.userId,
          provider: paymentMethod,
          amountCents,
          currency: CURRENCY,
          status: 'pending',
          formKey: randomBytes(32).toString('base64url'),
        });
        await ledger.addPending(tx, {
          installationId: input.installationId,
          type: 'add',
          amountUnits: centsToUnits(amountCents),
          paymentMethod,
          description: paymentMethod === 'local' ? 'Test checkout (no money moves)' : 'Card payment',
          purchaseId,
        });
      });
      // The page looks the purchase up (the provider adds its payment id and status); no amount to trust.
      const returnUrl = `${publicUrl}/payment-success?purchase=${purchaseId}`;
      try {
        const session = await checkout.create({ purchaseId, amountCents, currency: CURRENCY, returnUrl });
        if (session.sessionId) {
          await db.update(creditPurchases).set({ checkoutSessionId: session.sessionId }).where(eq(creditPurchases.id, purchaseId));
        }
        return { payment_link: session.url };
      } catch (err) {
        log.error({ err, purchaseId }, 'the payment provider did not create a checkout');
        await ledger.transaction((tx) => close(tx, purchaseId, 'failed'));
        throw new HttpError(502, 'The payment provider could not be reached');
      }
    },

    creditPurchase,

    /**
     * Applies one verified Dodo webhook event in one transaction with the record of its delivery id:
     * `payment.succeeded` credits, `payment.failed` / `payment.cancelled` close the purchase,
     * `refund.succeeded` writes a refund; any other type is acknowledged and ignored.
     */
    async handleWebhook(webhookId: string, event: DodoWebhookBody): Promise<CreditOutcome> {
      const outcome = await ledger.transaction(async (tx) => {
        if (!(await firstDelivery(tx, webhookId, event.type))) return 'duplicate-event' as const;
        const { data } = event;
        const purchaseId = data.metadata?.purchase_id;
        switch (event.type) {
          case DODO_PAYMENT_SUCCEEDED:
            if (!purchaseId || !data.payment_id || data.total_amount === undefined || !data.currency) return 'ignored' as const;
            return credit(tx, { purchaseId, providerPaymentId: data.payment_id, amountCents: data.total_amount, currency: data.currency });
          case DODO_PAYMENT_FAILED:
            return purchaseId ? close(tx, purchaseId, 'failed') : ('ignored' as const);
          case DODO_PAYMENT_CANCELLED:
            return purchaseId ? close(tx, purchaseId, 'cancelled') : ('ignored' as const);
          case DODO_REFUND_SUCCEEDED:
            return refund(tx, data);
          default:
            return 'ignored' as const;
        }
      });
      log.info({ webhookId, type: event.type, outcome }, 'payment webhook handled');
      return outcome;
    },

    /** The caller's purchase and the form token of the test checkout page (bound to purchase and session). */
    async testCheckout(installationId: number, purchaseId: string, sessionToken: string): Promise<{ purchase: PurchaseRow; token: string }> {
      const purchase = await ownPurchase(installationId, purchaseId);
      if (purchase.provider !== 'local') throw notFound('Purchase not found');
      return { purchase, token: formToken(purchase, sessionToken) };
    },

    /**
     * Pay on the local test checkout: the form token must be the one the page was given in this session.
     * Credits through the webhook's crediting step; paying twice credits once and leads to the same page.
     *
     * @throws HttpError 404 for another installation's purchase, 403 for a wrong token, 409 once cancelled.
     */
    async payTestCheckout(input: { installationId: number; purchaseId: string; sessionToken: string; token: unknown }): Promise<PaymentReturn> {
      const purchase = await ownPurchase(input.installationId, input.purchaseId);
      if (purchase.provider !== 'local') throw notFound('Purchase not found');
      checkToken(formToken(purchase, input.sessionToken), input.token);
      // A cancelled test purchase stays cancelled (Dodo's own checkout may still succeed after a failure).
      if (purchase.status === 'failed' || purchase.status === 'cancelled') throw conflict(TEST_CHECKOUT_TEXT.closed);
      const providerPaymentId = `test_${purchase.id}`;
      const outcome = await creditPurchase({ purchaseId: purchase.id, providerPaymentId, amountCents: purchase.amountCents, currency: purchase.currency });
      if (outcome !== 'credited' && outcome !== 'already-credited') throw conflict(TEST_CHECKOUT_TEXT.closed);
      const query = new URLSearchParams({ purchase: purchase.id, payment_id: providerPaymentId, status: 'succeeded' });
      return { redirect: `/payment-success?${query.toString()}` };
    },

    /** Cancel on the local test checkout: the purchase closes and its pending row fails. */
    async cancelTestCheckout(input: { installationId: number; purchaseId: string; sessionToken: string; token: unknown }): Promise<PaymentReturn> {
      const purchase = await ownPurchase(input.installationId, input.purchaseId);
      if (purchase.provider !== 'local') throw notFound('Purchase not found');
      checkToken(formToken(purchase, input.sessionToken), input.token);
      await ledger.transaction((tx) => close(tx, purchase.id, 'cancelled'));
      return { redirect: '/app' };
    },
  };
}

function checkToken(expected: string, given: unknown): void {
  const a = Buffer.from(expected);
  const b = Buffer.from(typeof given === 'string' ? given : '');
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw forbidden('This checkout form has expired: reload the page and try again');
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
