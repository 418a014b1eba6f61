import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { signedDelivery, WEBHOOK_KEY } from '../helpers/dodoWebhooks';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The balance and cost polls answer from memory with a weak ETag and 304, and every ledger write (a
 * credit add by test checkout or webhook, a metered use, a refund) gives them a new ETag at once.
 */
describe.each(databaseKinds())('credits and costs polls (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;
  let aliceId: number;
  let projectId: number;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, {
      env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000', PAYMENT_RATE_LIMIT_PER_MINUTE: '1000', DODO_PAYMENTS_WEBHOOK_KEY: WEBHOOK_KEY },
    });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    aliceId = await installationRowId(database, alice);
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Polled' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const poll = (user: TestUser, url: string, etag?: string) =>
    app.inject({ method: 'GET', url, headers: { ...user.headers, ...(etag ? { 'if-none-match': etag } : {}) } });
  const credits = (user: TestUser, etag?: string) => poll(user, '/api/user/credits', etag);
  const costs = (user: TestUser, etag?: string, project = projectId) => poll(user, `/api/projects/${project}/costs`, etag);
  const meter = (inputTokens = 1_000_000, outputTokens = 0) =>
    app.services.meter.record({ installationId: aliceId, projectId, agent: 'requirementsAgent', model: 'gpt-4o-mini', inputTokens, outputTokens });

  /** 200 with a weak ETag, then 304 with no body for that ETag; answers the ETag and the body. */
  async function current(request: (etag?: string) => Promise<LightMyRequestResponse>): Promise<{ etag: string; body: unknown }> {
    const full = await request();
    expect(full.statusCode).toBe(200);
    expect(full.headers['content-type']).toBe('application/json; charset=utf-8');
    const etag = full.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await request(etag);
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    return { etag, body: full.json() };
  }

  async function purchase(user: TestUser, amount: number): Promise<string> {
    const response = await app.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: user.headers, payload: { amount } });
    expect(response.statusCode).toBe(200);
    return (response.json().payment_link as string).split('/').pop()!;
  }

  async function payOnTestCheckout(user: TestUser, purchaseId: string): Promise<void> {
    const page = await app.inject({ method: 'GET', url: `/api/payments/test-checkout/${purchaseId}`, headers: { cookie: user.cookie } });
    const token = /name="token" value="([^"]+)"/.exec(page.body)![1]!;
    const paid = await app.inject({
      method: 'POST',
      url: `/api/payments/test-checkout/${purchaseId}/pay`,
      headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token }).toString(),
    });
    expect(paid.statusCode).toBe(303);
  }

  function webhook(type: string, data: Record<string, unknown>) {
    const delivery = signedDelivery({ business_id: 'bus_test', type, timestamp: new Date().toISOString(), data });
    return app.inject({ method: 'POST', url: '/api/payments/webhook', headers: delivery.headers, payload: delivery.body });
  }

  describe('GET /api/user/credits', () => {
    it('answers 200 with an ETag, 304 with an empty body while nothing changes, and 401 without a session', async () => {
      const { body } = await current((etag) => credits(alice, etag));
      expect(body).toEqual({ credits_balance: 5 });
      expect((await app.inject({ method: 'GET', url: '/api/user/credits', headers: { 'if-none-match': '*' } })).statusCode).toBe(401);
    });

    it('answers a new ETag after a credit add on the test checkout', async () => {
      const before = await current((etag) => credits(alice, etag));
      const id = await purchase(alice, 10);
      // A pending purchase does not move the balance: still 304.
      expect((await credits(alice, before.etag)).statusCode).toBe(304);
      await payOnTestCheckout(alice, id);
      const after = await credits(alice, before.etag);
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(before.etag);
      expect(after.json().credits_balance).toBeCloseTo((before.body as { credits_balance: number }).credits_balance + 10, 8);
    });

    it('answers a new ETag after a metered use', async () => {
      const before = await current((etag) => credits(alice, etag));
      await meter();
      const after = await credits(alice, before.etag);
      expect(after.statusCode).toBe(200);
      expect(after.json().credits_balance).toBeCloseTo((before.body as { credits_balance: number }).credits_balance - 5, 8);
    });

    it('answers a new ETag after webhook crediting and after a refund', async () => {
      const id = await purchase(alice, 25);
      const before = await current((etag) => credits(alice, etag));
      const paymentId = `pay_${id.slice(0, 8)}`;
      const succeeded = await webhook('payment.succeeded', { payment_id: paymentId, total_amount: 2500, currency: 'USD', metadata: { purchase_id: id } });
      expect(succeeded.statusCode).toBeLessThan(300);
      const credited = await credits(alice, before.etag);
      expect(credited.statusCode).toBe(200);
      expect(credited.json().credits_balance).toBeCloseTo((before.body as { credits_balance: number }).credits_balance + 25, 8);
      const refunded = await webhook('refund.succeeded', { payment_id: paymentId, refund_id: `ref_${id.slice(0, 8)}`, amount: 500, currency: 'USD' });
      expect(refunded.statusCode).toBeLessThan(300);
      const after = await credits(alice, credited.headers.etag as string);
      expect(after.statusCode).toBe(200);
      expect(after.json().credits_balance).toBeCloseTo(credited.json().credits_balance - 5, 8);
    });

    it('never keeps a balance read while a metered write was still open', async () => {
      for (let round = 0; round < 10; round++) {
        const before = await current((etag) => credits(alice, etag));
        // Polls race the write until it resolves; whatever they read, the first poll after it must see it.
        let done = false;
        const polling = async (): Promise<void> => {
          while (!done) {
            expect([200, 304]).toContain((await credits(alice, before.etag)).statusCode);
            // A poll from memory never waits on I/O: let the write's database round trips in.
            await new Promise((resolve) => setImmediate(resolve));
          }
        };
        const pollers = Array.from({ length: 3 }, polling);
        await meter(200_000).finally(() => (done = true));
        await Promise.all(pollers);
        const after = await credits(alice, before.etag);
        expect(after.statusCode).toBe(200);
        expect(after.json().credits_balance).toBeCloseTo((before.body as { credits_balance: number }).credits_balance - 1, 8);
      }
    });

    it("answers each installation its own balance: another installation's ETag is not a 304", async () => {
      const { etag } = await current((e) => credits(alice, e));
      const other = await credits(mallory, etag);
      expect(other.statusCode).toBe(200);
      expect(other.json()).toEqual({ credits_balance: 5 });
    });
  });

  describe('GET /api/projects/{id}/costs', () => {
    it('answers 200 with an ETag and 304 while nothing changes', async () => {
      const fresh = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Unspent' } })).json().id;
      const { body } = await current((etag) => costs(alice, etag, fresh));
      expect(body).toEqual({ total_cost: '0.00000000', last_updated: null });
    });

    it('answers a new ETag after a metered use of the project', async () => {
      const before = await current((etag) => costs(alice, etag));
      await meter(0, 1_000_000);
      const after = await costs(alice, before.etag);
      expect(after.statusCode).toBe(200);
      expect(Number(after.json().total_cost)).toBeCloseTo(Number((before.body as { total_cost: string }).total_cost) + 20, 8);
      expect(after.json().last_updated).not.toBeNull();
    });

    it("answers 404 for another installation's project, even with its current ETag", async () => {
      const { etag } = await current((e) => costs(alice, e));
      const answer = await costs(mallory, etag);
      expect(answer.statusCode).toBe(404);
      expect(answer.headers.etag).toBeUndefined();
      expect((await costs(mallory)).statusCode).toBe(404);
      expect((await costs(alice, undefined, 999_999)).statusCode).toBe(404);
    });
  });
});
