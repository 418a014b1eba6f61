import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { CREDIT_ERRORS, TEST_CHECKOUT_TEXT } from '../../../src/shared/constants/credits';
import { signedDelivery, WEBHOOK_KEY } from '../helpers/dodoWebhooks';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const paymentEvent = (type: string, purchaseId: string, data: Record<string, unknown> = {}) => ({
  business_id: 'bus_test',
  type,
  timestamp: new Date().toISOString(),
  data: {
    payload_type: 'Payment',
    payment_id: `pay_${purchaseId.slice(0, 8)}`,
    total_amount: 2500,
    currency: 'USD',
    status: type === 'payment.succeeded' ? 'succeeded' : 'failed',
    metadata: { purchase_id: purchaseId },
    customer: { customer_id: 'cus_1', email: 'a@example.com', name: 'A' },
    ...data,
  },
});

describe.each(databaseKinds())('payments (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, {
      env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000', PAYMENT_RATE_LIMIT_PER_MINUTE: '1000', DODO_PAYMENTS_WEBHOOK_KEY: WEBHOOK_KEY },
    });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const balance = async (user: TestUser): Promise<number> =>
    (await app.inject({ method: 'GET', url: '/api/user/credits', headers: user.headers })).json().credits_balance;
  const transactions = async (user: TestUser) => (await app.inject({ method: 'GET', url: '/api/user/transactions', headers: user.headers })).json();
  const createPayment = (user: TestUser, payload: unknown) =>
    app.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: user.headers, payload: payload as object });

  /** Creates a purchase and answers its id, read from the local test checkout link. */
  async function purchase(user: TestUser, amount = 25): Promise<string> {
    const response = await createPayment(user, { amount });
    expect(response.statusCode).toBe(200);
    const link: string = response.json().payment_link;
    expect(link).toMatch(/^\/api\/payments\/test-checkout\/[0-9a-f-]{36}$/);
    return link.split('/').pop()!;
  }

  const webhook = (delivery: ReturnType<typeof signedDelivery>) =>
    app.inject({ method: 'POST', url: '/api/payments/webhook', headers: delivery.headers, payload: delivery.body });

  async function ledgerIsWhole(): Promise<void> {
    const result = await database.db.execute(sql`
      select a.installation_id, a.balance,
        (select coalesce(sum(case when t.type = 'add' then t.amount else -t.amount end), 0)
           from credit_transactions t where t.installation_id = a.installation_id and t.status = 'completed') as ledger
      from credit_accounts a`);
    for (const row of (result as unknown as { rows: { balance: string; ledger: string }[] }).rows) expect(row.balance).toBe(row.ledger);
  }

  describe('amount rules on the server', () => {
    it.each([
      [0, CREDIT_ERRORS.invalidAmount],
      [-5, CREDIT_ERRORS.invalidAmount],
      ['10', CREDIT_ERRORS.invalidAmount],
      [null, CREDIT_ERRORS.invalidAmount],
      [0.5, CREDIT_ERRORS.belowMinimum],
      [10_000.01, CREDIT_ERRORS.aboveMaximum],
      [1.234, CREDIT_ERRORS.invalidAmount],
    ])('answers 400 for %p with "%s" and records nothing', async (amount, message) => {
      const before = (await transactions(alice)).length;
      const response = await createPayment(alice, { amount });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ detail: message });
      expect((await transactions(alice)).length).toBe(before);
    });

    it('answers 400 for a missing amount', async () => {
      expect((await createPayment(alice, {})).json()).toEqual({ detail: CREDIT_ERRORS.invalidAmount });
    });

    it.each([1, 10_000, 12.34, 99.9])('accepts %p and records a pending add', async (amount) => {
      const id = await purchase(alice, amount);
      const [latest] = await transactions(alice);
      expect(latest).toMatchObject({ transaction_type: 'add', amount, status: 'pending', payment_method: 'local' });
      expect(id).toHaveLength(36);
    });

    it('needs a session', async () => {
      expect((await app.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', payload: { amount: 10 } })).statusCode).toBe(401);
    });
  });

  describe('local test checkout', () => {
    const page = (user: TestUser, id: string) => app.inject({ method: 'GET', url: `/api/payments/test-checkout/${id}`, headers: { cookie: user.cookie } });
    const tokenOf = (response: LightMyRequestResponse): string => /name="token" value="([^"]+)"/.exec(response.body)![1]!;
    const post = (user: TestUser, id: string, action: 'pay' | 'cancel', token: string) =>
      app.inject({
        method: 'POST',
        url: `/api/payments/test-checkout/${id}/${action}`,
        headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ token }).toString(),
      });

    it('is our own page that says plainly it is a test, with Pay and Cancel forms and no script', async () => {
      const id = await purchase(alice, 25);
      const response = await page(alice, id);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/text\/html/);
      expect(response.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(response.body).toContain(TEST_CHECKOUT_TEXT.notice);
      expect(response.body).toContain('$25.00');
      expect(response.body).toMatch(new RegExp(`<form method="post" action="/api/payments/test-checkout/${id}/pay">`));
      expect(response.body).toMatch(new RegExp(`<form method="post" action="/api/payments/test-checkout/${id}/cancel">`));
      expect(response.body).not.toMatch(/<script/i);
    });

    it('credits once when Pay is posted twice, and returns to /payment-success with amount, payment id and status', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 25);
      const token = tokenOf(await page(alice, id));
      const [first, second] = [await post(alice, id, 'pay', token), await post(alice, id, 'pay', token)];
      for (const response of [first, second]) {
        expect(response.statusCode).toBe(303);
        expect(response.headers.location).toBe(`/payment-success?purchase=${id}&payment_id=test_${id}&status=succeeded`);
      }
      expect(await balance(alice)).toBeCloseTo(before + 25, 8);
      const rows = (await transactions(alice)).filter((t: { status: string }) => t.status === 'completed');
      expect(rows[0]).toMatchObject({ transaction_type: 'add', amount: 25, payment_method: 'local' });
      expect((await page(alice, id)).body).toContain(TEST_CHECKOUT_TEXT.closed);
      await ledgerIsWhole();
      // The balance says how much of it is test credit: no money moved for it.
      const credits = (await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json();
      expect(credits.test_credits).toBeGreaterThanOrEqual(25);
      expect(credits.test_credits).toBeLessThanOrEqual(credits.credits_balance);
      expect(rows[0].description).toMatch(/test checkout/i);
    });

    it("answers the caller's record of a payment by purchase or payment id: pending, then completed with the amount credited; 404 to anyone else", async () => {
      const id = await purchase(alice, 25);
      const lookup = (user: TestUser, query: string) => app.inject({ method: 'GET', url: `/api/payments/lookup?${query}`, headers: user.headers });
      expect((await lookup(alice, `purchase=${id}`)).json()).toMatchObject({ purchase_id: id, payment_id: null, status: 'pending', amount: 25, currency: 'USD', completed_at: null });
      await post(alice, id, 'pay', tokenOf(await page(alice, id)));
      const paid = (await lookup(alice, `payment_id=test_${id}`)).json();
      expect(paid).toMatchObject({ purchase_id: id, payment_id: `test_${id}`, status: 'completed', amount: 25 });
      expect(paid.completed_at).toEqual(expect.any(String));
      expect((await lookup(mallory, `purchase=${id}`)).statusCode).toBe(404);
      expect((await lookup(mallory, `payment_id=test_${id}`)).statusCode).toBe(404);
      expect((await lookup(alice, 'payment_id=pay_123')).json()).toEqual({ detail: 'No payment of yours has this id' });
      expect((await lookup(alice, '')).statusCode).toBe(400);
      expect((await lookup(alice, 'purchase=not-a-uuid')).statusCode).toBe(400);
    });

    it('credits once when two Pay posts race', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 7);
      const token = tokenOf(await page(alice, id));
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(alice, id, 'pay', token)));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(303));
      expect(await balance(alice)).toBeCloseTo(before + 7, 8);
      await ledgerIsWhole();
    });

    it('refuses a wrong token, or a token from another session, with 403', async () => {
      const id = await purchase(alice, 5);
      const token = tokenOf(await page(alice, id));
      expect((await post(alice, id, 'pay', 'forged')).statusCode).toBe(403);
      const secondSession = await signIn(app, 'alice');
      expect((await post(secondSession, id, 'pay', token)).statusCode).toBe(403);
      const before = await balance(alice);
      expect(await balance(alice)).toBe(before);
    });

    it('refuses a cross-origin form post', async () => {
      const id = await purchase(alice, 5);
      const token = tokenOf(await page(alice, id));
      const response = await app.inject({
        method: 'POST',
        url: `/api/payments/test-checkout/${id}/pay`,
        headers: { cookie: alice.cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `token=${encodeURIComponent(token)}`,
      });
      expect(response.statusCode).toBe(403);
    });

    it("answers 404 for another user's purchase id, on the page and on Pay", async () => {
      const id = await purchase(alice, 5);
      const token = tokenOf(await page(alice, id));
      expect((await page(mallory, id)).statusCode).toBe(404);
      expect((await post(mallory, id, 'pay', token)).statusCode).toBe(404);
      expect((await page(alice, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    });

    it('Cancel fails the pending row and closes the purchase; Pay afterwards answers 409', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 9);
      const token = tokenOf(await page(alice, id));
      const cancelled = await post(alice, id, 'cancel', token);
      expect(cancelled.statusCode).toBe(303);
      expect(cancelled.headers.location).toBe('/app');
      expect((await post(alice, id, 'pay', token)).statusCode).toBe(409);
      expect(await balance(alice)).toBe(before);
      const row = (await transactions(alice)).find((t: { amount: number }) => t.amount === 9);
      expect(row.status).toBe('failed');
    });
  });

  describe('webhook', () => {
    it('credits payment.succeeded once however many times it is delivered, even under new delivery ids', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 25);
      const event = paymentEvent('payment.succeeded', id);
      const delivery = signedDelivery(event);
      const answers = await Promise.all([webhook(delivery), webhook(delivery), webhook(delivery)]);
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
      expect(answers[0]!.json()).toEqual({ received: true });
      // The provider retries with a new id: the payment id is still credited once.
      expect((await webhook(signedDelivery(event))).statusCode).toBe(200);
      expect(await balance(alice)).toBeCloseTo(before + 25, 8);
      await ledgerIsWhole();
    });

    it('refuses a forged signature with 401 and credits nothing', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 25);
      const event = paymentEvent('payment.succeeded', id);
      const forger = new Webhook(`whsec_${Buffer.from('not-the-real-secret-at-all-0000000').toString('base64')}`);
      const delivery = signedDelivery(event);
      const forged = { ...delivery, headers: { ...delivery.headers, 'webhook-signature': forger.sign(delivery.id, new Date(), delivery.body) } };
      expect((await webhook(forged)).statusCode).toBe(401);
      // A body changed after signing fails too.
      const tampered = { ...delivery, body: delivery.body.replace('2500', '250000') };
      expect((await webhook(tampered)).statusCode).toBe(401);
      expect(await balance(alice)).toBe(before);
    });

    it('refuses a stale timestamp with 401, even with a valid signature', async () => {
      const before = await balance(alice);
      const id = await purchase(alice, 25);
      const stale = signedDelivery(paymentEvent('payment.succeeded', id), { at: new Date(Date.now() - 10 * 60_000) });
      const response = await webhook(stale);
      expect(response.statusCode).toBe(401);
      expect(response.json().detail).toMatch(/timestamp/i);
      expect(await balance(alice)).toBe(before);
    });

    it('answers 400 without the webhook headers', async () => {
      const response = await app.inject({ method: 'POST', url: '/api/payments/webhook', headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(response.statusCode).toBe(400);
    });

    it.each([
      ['a smaller amount', { total_amount: 100 }],
      ['a larger amount', { total_amount: 250_000 }],
      ['another currency', { currency: 'EUR' }],
    ])('does not credit a payment with %s', async (_label, data) => {
      const before = await balance(alice);
      const id = await purchase(alice, 25);
      expect((await webhook(signedDelivery(paymentEvent('payment.succeeded', id, data)))).statusCode).toBe(200);
      expect(await balance(alice)).toBe(before);
      const row = (await transactions(alice))[0];
      expect(row.status).toBe('pending');
    });

    it('marks payment.failed and payment.cancelled, and a later success still credits', async () => {
      const before = await balance(alice);
      const failed = await purchase(alice, 11);
      const cancelled = await purchase(alice, 12);
      await webhook(signedDelivery(paymentEvent('payment.failed', failed)));
      await webhook(signedDelivery(paymentEvent('payment.cancelled', cancelled)));
      const rows = await transactions(alice);
      expect(rows.find((t: { amount: number }) => t.amount === 11).status).toBe('failed');
      expect(rows.find((t: { amount: number }) => t.amount === 12).status).toBe('failed');
      expect(await balance(alice)).toBe(before);
      // The customer retried in the same checkout and paid.
      await webhook(signedDelivery(paymentEvent('payment.succeeded', failed, { total_amount: 1100, payment_id: 'pay_retry_1' })));
      expect(await balance(alice)).toBeCloseTo(before + 11, 8);
      await ledgerIsWhole();
    });

    it('writes refund.succeeded as a refund once, taking the dollars back', async () => {
      const id = await purchase(alice, 40);
      await webhook(signedDelivery(paymentEvent('payment.succeeded', id, { total_amount: 4000, payment_id: 'pay_refund_me' })));
      const before = await balance(alice);
      const refund = { business_id: 'bus_test', type: 'refund.succeeded', timestamp: new Date().toISOString(), data: { payload_type: 'Refund', refund_id: 'ref_1', payment_id: 'pay_refund_me', amount: 1500, currency: 'USD', is_partial: true } };
      await webhook(signedDelivery(refund));
      await webhook(signedDelivery(refund));
      expect(await balance(alice)).toBeCloseTo(before - 15, 8);
      expect((await transactions(alice))[0]).toMatchObject({ transaction_type: 'refund', amount: 15, status: 'completed' });
      // More than what was paid is never refunded.
      await webhook(signedDelivery({ ...refund, data: { ...refund.data, refund_id: 'ref_2', amount: 3000 } }));
      expect(await balance(alice)).toBeCloseTo(before - 15, 8);
      await ledgerIsWhole();
    });

    it('acknowledges events it does not handle, and unknown purchases, without crediting', async () => {
      const before = await balance(alice);
      expect((await webhook(signedDelivery({ type: 'subscription.active', data: {} }))).statusCode).toBe(200);
      expect((await webhook(signedDelivery(paymentEvent('payment.succeeded', '00000000-0000-4000-8000-000000000000')))).statusCode).toBe(200);
      expect(await balance(alice)).toBe(before);
    });
  });

  it('has no webhook route when DODO_PAYMENTS_WEBHOOK_KEY is unset', async () => {
    const plain = await buildTestApp(database);
    try {
      const delivery = signedDelivery({ type: 'payment.succeeded', data: {} });
      expect((await plain.inject({ method: 'POST', url: '/api/payments/webhook', headers: delivery.headers, payload: delivery.body })).statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('turns the test checkout off on a server reached from other machines, unless LOCAL_TEST_CHECKOUT turns it on', async () => {
    const create = async (env: Record<string, string>) => {
      const server = await buildTestApp(database, { env: { ...env, PUBLIC_URL: 'http://127.0.0.1:8080' } });
      try {
        const frank = await signIn(server, 'frank');
        const answer = await server.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: frank.headers, payload: { amount: 5 } });
        return { status: answer.statusCode, detail: answer.json<{ detail?: string }>().detail };
      } finally {
        await server.close();
      }
    };
    const team = await create({ HOST: '0.0.0.0' });
    expect(team.status).toBe(403);
    expect(team.detail).toMatch(/LOCAL_TEST_CHECKOUT=true/);
    expect((await create({ HOST: '0.0.0.0', LOCAL_TEST_CHECKOUT: 'true' })).status).toBe(200);
    expect((await create({ HOST: '127.0.0.1' })).status).toBe(200);
    expect((await create({ HOST: '127.0.0.1', LOCAL_TEST_CHECKOUT: 'false' })).status).toBe(403);
  });

  it('rate-limits payment creation per installation', async () => {
    const limited = await buildTestApp(database, { env: { PAYMENT_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const erin = await signIn(limited, 'erin');
      const codes = [];
      for (let i = 0; i < 4; i += 1) {
        codes.push((await limited.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: erin.headers, payload: { amount: 5 } })).statusCode);
      }
      expect(codes).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});
