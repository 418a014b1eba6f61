import { Webhook } from 'standardwebhooks';

/** The webhook key the payment tests configure (DODO_PAYMENTS_WEBHOOK_KEY). */
export const WEBHOOK_KEY = `whsec_${Buffer.from('credits-test-webhook-secret-0123456789').toString('base64')}`;
const signer = new Webhook(WEBHOOK_KEY);

let deliveries = 0;

/** A webhook as Dodo sends it: Standard Webhooks headers signed over the exact body. */
export function signedDelivery(event: object, options: { id?: string; at?: Date; body?: string } = {}) {
  const id = options.id ?? `msg_${Date.now()}_${(deliveries += 1)}`;
  const at = options.at ?? new Date();
  const body = options.body ?? JSON.stringify(event);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(id, at, body),
    },
  };
}
