import type { FastifyInstance } from 'fastify';
import YAML from 'yaml';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StackResponse } from '../../../src/shared/api/stack';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The Collected Requirements panel's controls: stack operations through one route, checked against each
 * operation's schema, scoped to the caller's project, and the requirements text rendered from the model;
 * the offline agent's next turn keeps what the controls did.
 */
describe.each(databaseKinds())('stack operations route (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-stack-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function newProject(user: TestUser, name: string): Promise<number> {
    const r = await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name } });
    return r.json<{ id: number }>().id;
  }
  const call = (user: TestUser, projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { ...user.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });
  const ops = (user: TestUser, projectId: number, list: unknown[]) => call(user, projectId, 'POST', '/api/planning/stack/ops', { ops: list });
  const say = async (projectId: number, message: string) => {
    const r = await call(alice, projectId, 'POST', '/api/planning/requirements-gatherer', { message });
    expect(r.statusCode).toBe(200);
  };
  const names = (s: StackResponse) => s.model.components.map((c) => c.name).sort();

  test('the controls remove, add, set a port, a domain and what is private; the requirements follow; the next turn keeps them', async () => {
    const projectId = await newProject(alice, 'controls');
    await say(projectId, 'Nextcloud with MariaDB and Redis behind Nginx on my VPS, no domain, light load');
    const first = (await call(alice, projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(names(first)).toEqual(expect.arrayContaining(['nextcloud', 'mariadb', 'redis']));
    expect(first.catalogue.find((c) => c.id === 'adminer')).toMatchObject({ label: expect.stringContaining('Adminer'), category: 'dashboard' });
    expect(first.ready_to_continue).toBe(true);

    const removed = await ops(alice, projectId, [{ op: 'exclude', name: 'redis' }]);
    expect(removed.statusCode).toBe(200);
    const afterRemove = removed.json<StackResponse>();
    expect(names(afterRemove)).not.toContain('redis');
    expect(afterRemove.requirements).not.toMatch(/^- Redis/m);
    expect(afterRemove.ready_to_continue).toBe(true);
    expect((await call(alice, projectId, 'GET', '/api/planning/requirements')).json<{ content: string }>().content).toBe(afterRemove.requirements);

    const added = (await ops(alice, projectId, [{ op: 'addComponent', product: 'adminer' }, { op: 'makePrivate', component: 'adminer' }])).json<StackResponse>();
    expect(added.model.components.find((c) => c.name === 'adminer')).toMatchObject({ keepPrivate: true });
    expect(added.requirements).toContain('Adminer');

    const domain = (await ops(alice, projectId, [{ op: 'setDomain', component: 'nextcloud', domain: 'cloud.example.org' }])).json<StackResponse>();
    expect(domain.model.exposures).toContainEqual(expect.objectContaining({ component: 'nextcloud', via: 'proxy', domain: 'cloud.example.org', tls: true }));
    expect(domain.requirements).toContain('cloud.example.org');

    const port = (await ops(alice, projectId, [{ op: 'setPort', component: 'mariadb', hostPort: 3307 }])).json<StackResponse>();
    expect(port.model.exposures).toContainEqual(expect.objectContaining({ component: 'mariadb', via: 'port', hostPort: 3307 }));

    // The conversation goes on in words: the offline agent composes from them again and applies the edits after.
    await say(projectId, 'sounds good');
    const later = (await call(alice, projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(names(later)).not.toContain('redis');
    expect(later.model.components.find((c) => c.name === 'adminer')).toMatchObject({ keepPrivate: true });
    expect(later.requirements).toContain('cloud.example.org');
    expect(later.requirements).not.toMatch(/^- Redis/m);
  });

  test('eight corrections with the controls reach the architecture plan', async () => {
    const projectId = await newProject(alice, 'eight');
    await say(projectId, 'Nextcloud with MariaDB, Redis and Adminer behind Caddy at cloud.example.org on my VPS, light load');
    const corrections: Array<[string, unknown[]]> = [
      ['remove', [{ op: 'exclude', name: 'redis' }]],
      ['replace', [{ op: 'replaceComponent', name: 'mariadb', product: 'postgres' }]],
      ['add', [{ op: 'addComponent', product: 'uptime-kuma' }]],
      ['domain', [{ op: 'setDomain', component: 'nextcloud', domain: 'files.example.net' }]],
      ['port', [{ op: 'setPort', component: 'adminer', hostPort: 8090 }]],
      ['private', [{ op: 'makePrivate', component: 'adminer' }]],
      ['public', [{ op: 'expose', component: 'uptime-kuma', via: 'proxy', domain: 'status.example.net' }]],
      ['rule out', [{ op: 'exclude', name: 'nginxProxy' }]],
    ];
    for (const [name, list] of corrections) {
      const r = await ops(alice, projectId, list);
      expect({ name, status: r.statusCode, body: r.statusCode === 200 ? '' : r.body }).toEqual({ name, status: 200, body: '' });
    }
    const arch = await call(alice, projectId, 'POST', '/api/planning/cloud-architect', { message: 'Generate architecture plan' });
    expect(arch.statusCode).toBe(200);
    const plan = (await call(alice, projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan;
    const compose = YAML.parse(plan.match(/## docker-compose.yml\n\n```yaml\n([\s\S]*?)\n```/)![1]!) as { services: Record<string, { ports?: string[] }> };
    const services = Object.keys(compose.services);
    expect(services).toEqual(expect.arrayContaining(['nextcloud', 'postgres', 'adminer', 'caddy']));
    expect(services.some((s) => s.startsWith('uptime'))).toBe(true);
    expect(services).not.toContain('redis');
    expect(services).not.toContain('mariadb');
    expect(plan).toMatch(/files\.example\.net \{[^}]*reverse_proxy nextcloud:/);
    expect(plan).toMatch(/status\.example\.net \{[^}]*reverse_proxy uptime[\w-]*:/);
    expect(plan).not.toMatch(/reverse_proxy adminer:/);
    expect((compose.services.adminer!.ports ?? []).filter((p) => !p.startsWith('127.0.0.1:'))).toEqual([]);
  });

  test('bad input answers 400 with a detail naming the operation and why; nothing changes', async () => {
    const projectId = await newProject(alice, 'bad input');
    await say(projectId, 'PostgreSQL and Redis on my VPS, light load');
    const before = (await call(alice, projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    const cases: Array<[unknown, RegExp]> = [
      [[{ op: 'dropTable' }], /"dropTable" is not a stack operation/],
      [[{ name: 'redis' }], /op is required/],
      [[{ op: 'setPort', component: 'redis', hostPort: 70000 }], /operation 1 \(setPort\): \/hostPort must be <= 65535/],
      [[{ op: 'removeComponent', name: 'redis', force: true }], /additional properties \(force\)/],
      [[{ op: 'removeComponent', name: 'mysql' }], /mysql is not in the stack/],
      [[{ op: 'removeComponent', name: 'redis' }, { op: 'addComponent', product: 'nonesuch' }], /operation 2 \(addComponent\): nonesuch is not in the catalogue/],
    ];
    for (const [list, detail] of cases) {
      const r = await ops(alice, projectId, list as unknown[]);
      expect({ list, status: r.statusCode }).toEqual({ list, status: 400 });
      expect(r.json<{ detail: string }>().detail).toMatch(detail);
    }
    expect((await ops(alice, projectId, [])).statusCode).toBe(400);
    const after = (await call(alice, projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(after.model).toEqual(before.model);
  });

  test("another installation's project is not found, and neither reads nor changes it", async () => {
    const projectId = await newProject(alice, 'private');
    await say(projectId, 'PostgreSQL on my VPS, light load');
    expect((await call(bob, projectId, 'GET', '/api/planning/stack')).statusCode).toBe(404);
    const r = await ops(bob, projectId, [{ op: 'removeComponent', name: 'postgres' }]);
    expect(r.statusCode).toBe(404);
    expect(r.json()).toHaveProperty('detail');
    expect(names((await call(alice, projectId, 'GET', '/api/planning/stack')).json<StackResponse>())).toContain('postgres');
  });
});
