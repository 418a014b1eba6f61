import { DodoPayments } from 'dodopayments';
import type { DodoConfig } from '../../config';

export interface CheckoutRequest {
  purchaseId: string;
  amountCents: number;
  currency: 'USD';
  /** Where the provider sends the browser back; it appends `payment_id` and `status`. */
  returnUrl: string;
}

export interface Checkout {
  /** The page the client opens in a new tab. */
  url: string;
  sessionId: string | null;
}

/** Where a purchase is paid: Dodo Payments, or our own local test checkout. Chosen once from configuration. */
export interface CheckoutProvider {
  kind: 'dodo' | 'local';
  /** Why no purchase may be started here (the test checkout turned off), or null. */
  refusal: string | null;
  create(request: CheckoutRequest): Promise<Checkout>;
}

/** Why the local test checkout is off, in the words a person (and the operator reading README) needs. */
export const TEST_CHECKOUT_OFF =
  'No payment provider is configured, and the test checkout is off on a server reached from other machines (an operator turns it on with LOCAL_TEST_CHECKOUT=true)';

/** The default: our own page, which says it is a test; no money moves. Off (`enabled` false) it starts no purchase. */
export function createLocalCheckout(enabled = true): CheckoutProvider {
  return {
    kind: 'local',
    refusal: enabled ? null : TEST_CHECKOUT_OFF,
    async create({ purchaseId }) {
      // Relative, so it opens on whatever host the browser (and its session cookie) is on.
      return { url: `/api/payments/test-checkout/${encodeURIComponent(purchaseId)}`, sessionId: null };
    },
  };
}

/**
 * A Dodo Payments checkout session for the pay-what-you-want product `productId`: the amount in cents,
 * our purchase id in the metadata (the webhook names it back), currency and discounts fixed so that the
 * amount paid is the amount ordered.
 */
export function createDodoCheckout(config: DodoConfig): CheckoutProvider {
  const client = new DodoPayments({
    bearerToken: config.apiKey,
    // The SDK refuses both at once: an explicit host replaces the environment's.
    ...(config.baseUrl ? { baseURL: config.baseUrl } : { baseURL: null, environment: config.environment }),
    webhookKey: null,
    maxRetries: 1,
    timeout: 20_000,
  });
  return {
    kind: 'dodo',
    refusal: null,
    async create({ purchaseId, amountCents, returnUrl }) {
      const session = await client.checkoutSessions.create({
        product_cart: [{ product_id: config.productId, quantity: 1, amount: amountCents }],
        metadata: { purchase_id: purchaseId },
        return_url: returnUrl,
        feature_flags: { allow_currency_selection: false, allow_discount_code: false },
      });
      if (!session.checkout_url) throw new Error('Dodo Payments answered without a checkout_url');
      return { url: session.checkout_url, sessionId: session.session_id };
    },
  };
}
