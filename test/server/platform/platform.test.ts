import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

describe('health, readiness, docs and routing', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let staticDir: string;

  beforeAll(async () => {
    staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-static-'));
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.mkdirSync(path.join(staticDir, 'assets'));
    fs.writeFileSync(path.join(staticDir, 'assets', 'main.0123abcd.js'), 'console.log(1)');
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { STATIC_DIR: staticDir } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(staticDir, { recursive: true, force: true });
  });

  it('answers health and readiness without a session', async () => {
    expect((await app.inject('/api/health')).json()).toEqual({ status: 'ok' });
    expect((await app.inject('/api/ready')).json()).toEqual({ status: 'ready' });
  });

  it('answers 503 on /api/ready when the database is gone', async () => {
    const db = await openTestDatabase('pglite');
    const other = await buildTestApp(db);
    await db.close();
    const response = await other.inject('/api/ready');
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ detail: 'Database not reachable' });
    await other.close();
  });

  it('publishes an OpenAPI document generated from the route schemas, and a reference page', async () => {
    const response = await app.inject('/api/openapi.json');
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/projects', '/api/projects/{id}', '/api/project-states/{projectId}', '/api/github/local-login']),
    );
    expect(doc.paths['/api/projects'].post.requestBody.content['application/json'].schema.properties.name.maxLength).toBe(100);
    const docs = await app.inject('/api/docs');
    expect([200, 302]).toContain(docs.statusCode);
    const page = await app.inject(docs.statusCode === 302 ? String(docs.headers.location) : '/api/docs');
    expect(page.body).toMatch(/swagger/i);
  });

  it('answers JSON 404 for an unknown API route, with or without a session', async () => {
    const user = await signIn(app, 'alice');
    for (const headers of [{}, user.headers]) {
      const response = await app.inject({ method: 'GET', url: '/api/nope', headers });
      expect(response.statusCode).toBe(404);
      expect(response.json().detail).toMatch(/Not found/);
    }
  });

  it("serves index.html for the app's own routes and hashed assets with a long cache", async () => {
    for (const url of ['/', '/app', '/app/12/costs?returnTo=home', '/pricing', '/github-success?installation_id=1']) {
      const response = await app.inject(url);
      expect({ url, status: response.statusCode }).toEqual({ url, status: 200 });
      expect(response.body).toContain('<div id="root">');
    }
    const asset = await app.inject('/assets/main.0123abcd.js');
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
  });
});
