import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const fixture = (name: string): string => fs.readFileSync(path.join(__dirname, '../fixtures/dodo', name), 'utf8');

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/**
 * A local stand-in for the Dodo Payments API: it answers the SDK's requests with the response files
 * under fixtures/dodo (the documented shapes of Dodo's answers) and keeps every request for assertions.
 */
async function startFakeDodo(reply: (request: Recorded) => { status: number; body: string }) {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : null };
      requests.push(recorded);
      const { status, body } = reply(recorded);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('Dodo Payments checkout (pglite)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
  });
  afterAll(async () => {
    await database.destroy();
  });

  async function appWith(fakeUrl: string): Promise<{ app: FastifyInstance; alice: TestUser }> {
    const app = await buildTestApp(database, {
      env: {
        DODO_PAYMENTS_API_KEY: 'test_key_123',
        DODO_PRODUCT_ID: 'pdt_credits',
        DODO_PAYMENTS_BASE_URL: fakeUrl,
        PUBLIC_URL: 'https://ops.example.com',
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
      },
    });
    return { app, alice: await signIn(app, `alice${Date.now()}`) };
  }

  it('creates a checkout session: amount in cents, purchase id in metadata, return to /payment-success', async () => {
    const dodo = await startFakeDodo(() => ({ status: 200, body: fixture('checkout-session-created.json') }));
    const { app, alice } = await appWith(dodo.url);
    try {
      const response = await app.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: alice.headers, payload: { amount: 25.5 } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ payment_link: 'https://test.checkout.dodopayments.com/session/cks_0NWfbIV6hZ4uyBHqrw6Wd' });

      expect(dodo.requests).toHaveLength(1);
      const [request] = dodo.requests;
      expect(request!.method).toBe('POST');
      expect(request!.url).toBe('/checkouts');
      expect(request!.headers.authorization).toBe('Bearer test_key_123');
      const body = request!.body as Record<string, unknown>;
      expect(body.product_cart).toEqual([{ product_id: 'pdt_credits', quantity: 1, amount: 2550 }]);
      expect(body.return_url).toMatch(/^https:\/\/ops\.example\.com\/payment-success\?purchase=[0-9a-f-]{36}$/);
      expect(body.metadata).toEqual({ purchase_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect(body.feature_flags).toEqual({ allow_currency_selection: false, allow_discount_code: false });

      const [pending] = (await app.inject({ method: 'GET', url: '/api/user/transactions', headers: alice.headers })).json();
      expect(pending).toMatchObject({ transaction_type: 'add', amount: 25.5, status: 'pending', payment_method: 'dodo' });
      // With Dodo configured there is no local test checkout to pay on.
      const purchaseId = (body.metadata as { purchase_id: string }).purchase_id;
      expect((await app.inject({ method: 'GET', url: `/api/payments/test-checkout/${purchaseId}`, headers: alice.headers })).statusCode).toBe(404);
    } finally {
      await app.close();
      await dodo.close();
    }
  });

  it('answers 502 when Dodo refuses, and marks the purchase failed', async () => {
    const dodo = await startFakeDodo(() => ({ status: 404, body: fixture('product-not-found.json') }));
    const { app, alice } = await appWith(dodo.url);
    try {
      const response = await app.inject({ method: 'POST', url: '/api/user/credits/create-dodo-payment', headers: alice.headers, payload: { amount: 10 } });
      expect(response.statusCode).toBe(502);
      expect(response.json().detail).toMatch(/payment provider/);
      const [row] = (await app.inject({ method: 'GET', url: '/api/user/transactions', headers: alice.headers })).json();
      expect(row).toMatchObject({ amount: 10, status: 'failed' });
      expect((await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json().credits_balance).toBe(5);
    } finally {
      await app.close();
      await dodo.close();
    }
  });
});
