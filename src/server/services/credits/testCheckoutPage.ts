import { PRODUCT_NAME } from '../../../shared/constants';
import { TEST_CHECKOUT_TEXT } from '../../../shared/constants/credits';
import { centsToDollarText } from './money';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Content-Security-Policy of the page: no script at all, forms post only to us, never framed. */
export const TEST_CHECKOUT_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface TestCheckoutView {
  purchaseId: string;
  amountCents: number;
  status: string;
  /** The form token bound to this purchase and the viewer's session. */
  token: string;
}

/**
 * The local test checkout: a server-rendered page with no script, which says plainly that it is a test,
 * and Pay / Cancel as POST forms carrying the form token.
 */
export function renderTestCheckoutPage(view: TestCheckoutView): string {
  const amount = `$${centsToDollarText(view.amountCents)}`;
  const base = `/api/payments/test-checkout/${encodeURIComponent(view.purchaseId)}`;
  const token = escapeHtml(view.token);
  const open = view.status === 'pending';
  const actions = open
    ? `<div class="actions">
  <form method="post" action="${base}/pay"><input type="hidden" name="token" value="${token}"><button type="submit" class="pay">${TEST_CHECKOUT_TEXT.pay} ${amount}</button></form>
  <form method="post" action="${base}/cancel"><input type="hidden" name="token" value="${token}"><button type="submit">${TEST_CHECKOUT_TEXT.cancel}</button></form>
</div>`
    : `<p><strong>${TEST_CHECKOUT_TEXT.closed}</strong> (${escapeHtml(view.status)})</p><p><a href="/app">Return to projects</a></p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${TEST_CHECKOUT_TEXT.title} - ${escapeHtml(PRODUCT_NAME)}</title>
<style>
body { font-family: system-ui, sans-serif; background: #0f172a; color: #e2e8f0; display: grid; place-items: center; min-height: 100vh; margin: 0; }
main { background: #1e293b; padding: 2rem; border-radius: 12px; max-width: 28rem; width: calc(100% - 2rem); }
.notice { background: #854d0e; color: #fef9c3; padding: 0.75rem 1rem; border-radius: 8px; }
.amount { font-size: 2rem; font-weight: 700; margin: 1rem 0; }
.actions { display: flex; gap: 0.75rem; }
button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 8px; border: 1px solid #475569; background: #334155; color: inherit; cursor: pointer; }
button.pay { background: #2563eb; border-color: #2563eb; }
a { color: #93c5fd; }
</style>
</head>
<body>
<main>
<h1>${TEST_CHECKOUT_TEXT.title}</h1>
<p class="notice" role="note">${TEST_CHECKOUT_TEXT.notice}</p>
<p>${escapeHtml(PRODUCT_NAME)} credits</p>
<p class="amount">${amount}</p>
${actions}
</main>
</body>
</html>`;
}
