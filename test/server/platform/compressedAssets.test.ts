import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** Built assets go out precompressed and cached for a year when hashed; JSON is compressed above 1 KiB; no source maps. */
describe('compressed, cached assets', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let staticDir: string;
  const script = `console.log(${JSON.stringify('x'.repeat(4_000))});`;
  const LANDING = '<!doctype html><div id="root"><main><video poster="/images/requirements.png"></video></main></div>';

  beforeAll(async () => {
    staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-static-'));
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    // What the client's build prerenders (src/client/prerenderLanding.tsx), with its brotli copy.
    fs.writeFileSync(path.join(staticDir, 'landing.html'), LANDING);
    fs.writeFileSync(path.join(staticDir, 'landing.html.br'), zlib.brotliCompressSync(LANDING));
    fs.mkdirSync(path.join(staticDir, 'assets'));
    const file = path.join(staticDir, 'assets', 'main.0123abcd.js');
    // What the build writes (compression-webpack-plugin): the file, its .br and its .gz.
    fs.writeFileSync(file, script);
    fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(script));
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(script));
    fs.writeFileSync(`${file}.map`, '{"version":3,"sources":["secret.ts"]}');
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { STATIC_DIR: staticDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(staticDir, { recursive: true, force: true });
  });

  const asset = (acceptEncoding?: string) =>
    app.inject({ method: 'GET', url: '/assets/main.0123abcd.js', headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

  it('serves the brotli copy to a browser that accepts it, gzip otherwise, the file itself to anyone else', async () => {
    const br = await asset('gzip, deflate, br');
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(script);

    const gz = await asset('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(script);

    const plain = await asset();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
  });

  it('caches hashed assets for a year as immutable, and revalidates index.html', async () => {
    for (const encoding of ['br', 'gzip', undefined]) {
      expect((await asset(encoding)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const page = await app.inject({ method: 'GET', url: '/projects' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    // Revalidated, a page keeps its policy: one the configuration changed reaches a page whose bytes did not.
    const file = await app.inject({ method: 'GET', url: '/index.html' });
    const again = await app.inject({ method: 'GET', url: '/index.html', headers: { 'if-none-match': String(file.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
    expect(again.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('sends the prerendered landing page at / to a browser without a session, and index.html to a signed-in one and at every other path', async () => {
    for (const url of ['/', '/?utm_source=x']) {
      const landing = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br' } });
      expect(landing.statusCode).toBe(200);
      expect(landing.headers['content-type']).toMatch(/^text\/html/);
      expect(landing.headers['cache-control']).toBe('no-cache');
      expect(landing.headers['content-encoding']).toBe('br');
      expect(landing.headers['content-security-policy']).toContain("script-src 'self'");
      expect(zlib.brotliDecompressSync(landing.rawPayload).toString()).toBe(LANDING);
    }
    // Signed in, the app sends the browser on to its projects: it must not see the landing page first.
    const alice = await signIn(app, 'alice');
    const signedIn = await app.inject({ method: 'GET', url: '/', headers: { cookie: alice.headers.cookie } });
    expect(signedIn.body).toBe('<!doctype html><div id="root"></div>');
    expect((await app.inject({ method: 'GET', url: '/pricing' })).body).toBe('<!doctype html><div id="root"></div>');
  });

  it('never serves a source map', async () => {
    const map = await app.inject({ method: 'GET', url: '/assets/main.0123abcd.js.map' });
    expect(map.body).not.toContain('secret.ts');
  });

  it('compresses JSON above 1 KiB for a client that accepts it, and leaves small answers and 304s alone', async () => {
    const alice = await signIn(app, 'alice');
    for (let i = 0; i < 20; i += 1) {
      await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: `project ${i}`, description: 'x'.repeat(100) } });
    }
    const list = await app.inject({ method: 'GET', url: '/api/projects', headers: { ...alice.headers, 'accept-encoding': 'gzip' } });
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(list.rawPayload).toString())).toHaveLength(20);

    const small = await app.inject({ method: 'GET', url: '/api/user/credits', headers: { ...alice.headers, 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    const notModified = await app.inject({
      method: 'GET',
      url: '/api/user/credits',
      headers: { ...alice.headers, 'accept-encoding': 'gzip', 'if-none-match': small.headers.etag as string },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect(notModified.rawPayload.length).toBe(0);
  });
});
