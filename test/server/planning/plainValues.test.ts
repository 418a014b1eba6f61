import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const KEY = 'Zx81kq0PpLr7Tt2Vb9WmYc3N';

describe.each(databaseKinds())('only secrets are hidden (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let projectId: number;

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, ...(payload ? { payload } : {}) });

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'n8n' } })).json().id;
    // As the environment dialog of a repository analysis stores them.
    await app.services.planning.storeAnalysisSecrets(projectId, {
      environment: [
        { name: 'N8N_HOST', description: 'From the environment dialog', value: 'n8n.example.com' },
        { name: 'N8N_PORT', description: 'From the environment dialog', value: '5678' },
        { name: 'N8N_ENCRYPTION_KEY', description: 'From the environment dialog', value: KEY },
      ],
    });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('a domain and a port the person wrote stay visible in their message, the reply and the document; a key does not', async () => {
    const secrets = (await call('GET', '/api/planning/requirements/user-secrets')).json<{ secrets: Array<{ name: string; secret_type: string }> }>().secrets;
    expect(Object.fromEntries(secrets.map((s) => [s.name, s.secret_type]))).toMatchObject({ N8N_HOST: 'text', N8N_PORT: 'text', N8N_ENCRYPTION_KEY: 'password' });
    expect(Object.keys(await app.services.planning.hiddenValues(projectId))).toEqual(['N8N_ENCRYPTION_KEY']);
    // Every value still reaches the sandbox.
    expect(await app.services.planning.secretValues(projectId)).toMatchObject({ N8N_HOST: 'n8n.example.com', N8N_PORT: '5678', N8N_ENCRYPTION_KEY: KEY });

    const turn = await call('POST', '/api/planning/requirements-gatherer', { message: `n8n on my VPS with the domain n8n.example.com on port 5678, key ${KEY}` });
    expect(turn.statusCode).toBe(200);
    expect(turn.body).not.toContain(KEY);
    const thread = (await call('GET', '/api/planning/threads/requirements')).json<{ messages: Array<{ role: string; content: string }> }>().messages;
    expect(thread[0]!.content).toBe('n8n on my VPS with the domain n8n.example.com on port 5678, key [REDACTED]');
    const document = (await call('GET', '/api/planning/requirements')).json<{ content: string }>().content;
    expect(document).toContain('n8n.example.com');
    expect(document).not.toContain('[REDACTED]');
  });
});
