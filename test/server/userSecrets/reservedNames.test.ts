import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { planningSecrets } from '../../../src/server/db/schema';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { RESERVED_SECRET_NAMES, reservedSecretName, stepEnvironment } from '../../../src/server/services/userSecrets/reservedNames';
import { createSecretBox } from '../../../src/server/services/userSecrets/secretBox';
import { createUserSecrets } from '../../../src/server/services/userSecrets/userSecrets';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * User Secret names that would change how steps run (the sandbox's PATH and HOME, bash's BASH_ENV and
 * IFS, the loader's LD_PRELOAD, docker's DOCKER_HOST, compose's COMPOSE_*) are refused with a 400 naming
 * the problem, whichever way they arrive (the secrets route, the requirements agent's list, the
 * environment dialog of an analysis), and a refused request writes nothing.
 */

/** Every exact name the list holds, and a name in each namespace. */
const reservedExamples = RESERVED_SECRET_NAMES.flatMap((r) => [...(r.names ?? []), ...(r.prefix ? [`${r.prefix}X`, `${r.prefix}PROJECT_NAME`] : [])]);
const reservedArb = fc.oneof(
  fc.constantFrom(...reservedExamples),
  fc.tuple(fc.constantFrom(...RESERVED_SECRET_NAMES.flatMap((r) => (r.prefix ? [r.prefix] : []))), fc.stringMatching(/^[A-Z0-9_]{0,20}$/)).map(([p, rest]) => p + rest),
);

describe('reserved User Secret names', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-reserved-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, DRIFT_CHECK_MINUTES: '0' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const newProject = async (name: string): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
  const rowsOf = (projectId: number) => database.db.select().from(planningSecrets).where(eq(planningSecrets.projectId, projectId)).orderBy(planningSecrets.name);
  const secrets = () => createUserSecrets({ db: database.db, secretBox: createSecretBox(randomBytes(32)), analysed: async () => undefined });

  it('names what the steps and the sandbox read; no catalogued product asks for one', () => {
    for (const name of ['PATH', 'HOME', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'BASH_ENV', 'ENV', 'IFS', 'SHELLOPTS', 'COMPOSE_PROJECT_NAME', 'COMPOSE_FILE', 'COMPOSE_PROFILES', 'DOCKER_HOST', 'DOCKER_CONTEXT', 'GIT_SSH_COMMAND', 'GIT_CONFIG_COUNT', 'SSH_AUTH_SOCK', 'TF_CLI_ARGS_apply', 'LC_CTYPE', 'BASH_FUNC_x%%']) {
      expect([name, reservedSecretName(name)]).toEqual([name, expect.any(String)]);
    }
    // Environment names are case-sensitive, and an application's own names that only look alike are its own.
    for (const name of ['path', 'Path', 'DOCKER_INFLUXDB_INIT_PASSWORD', 'LD_SUPERUSER_PASSWORD', 'POSTGRES_PASSWORD', 'SSH_PRIVATE_KEY', 'GITHUB_TOKEN', 'TF_VAR_hcloud_token', 'HCLOUD_TOKEN', 'NODE_ENV', 'COMPOSER_AUTH', '__proto__']) {
      expect([name, reservedSecretName(name)]).toEqual([name, undefined]);
    }
    for (const product of Object.values(PRODUCTS)) for (const s of product.secrets ?? []) expect([product.id, s.name, reservedSecretName(s.name)]).toEqual([product.id, s.name, undefined]);
  });

  it('are refused by the secrets route with a 400 naming the problem, and no value is stored', async () => {
    const projectId = await newProject('route');
    const headers = { ...alice.headers, 'project-id': String(projectId) };
    // A row kept from before names were checked: declared, no value yet.
    await database.db.insert(planningSecrets).values({ projectId, name: 'DOCKER_HOST', description: 'old', required: true, secretType: 'text', declared: true });
    await fc.assert(
      fc.asyncProperty(fc.oneof(reservedArb, fc.constant('DOCKER_HOST')), fc.string({ minLength: 1, maxLength: 40 }).filter((v) => /\S/.test(v)), async (name, value) => {
        const r = await app.inject({ method: 'POST', url: '/api/planning/requirements/user-secrets', headers, payload: { name, value } });
        expect(r.statusCode).toBe(400);
        expect(r.json<{ detail: string }>().detail).toContain(`${name} cannot be a User Secret`);
      }),
      { numRuns: 60 },
    );
    expect((await rowsOf(projectId)).map((r) => [r.name, r.ciphertext])).toEqual([['DOCKER_HOST', null]]);
    // Hostile shapes are refused by the name's own rule, before anything reads them.
    for (const name of ['PATH=/tmp', 'LD_PRELOAD ', 'BASH_FUNC_x%%', '', 'A'.repeat(200), 'ÄPATH', 'PATH\n']) {
      const r = await app.inject({ method: 'POST', url: '/api/planning/requirements/user-secrets', headers, payload: { name, value: 'x' } });
      expect([name, r.statusCode]).toEqual([name, 400]);
      expect(typeof r.json<{ detail: string }>().detail).toBe('string');
    }
  });

  it('in the requirements agent’s list refuse the whole list: what was declared stays as it was', async () => {
    const projectId = await newProject('declared');
    const service = secrets();
    await service.declareSecrets(projectId, [{ name: 'POSTGRES_PASSWORD', secret_type: 'password' }]);
    const before = await rowsOf(projectId);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('APP_SECRET', 'REDIS_PASSWORD', 'POSTGRES_PASSWORD'), { maxLength: 4 }), reservedArb, fc.nat(4), async (good, bad, at) => {
        // The bad name anywhere in the list: before, between or after names that are fine.
        const list: Array<{ name: string; description?: string }> = good.map((name) => ({ name }));
        list.splice(Math.min(at, list.length), 0, { name: bad, description: 'x' });
        await expect(service.declareSecrets(projectId, list)).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining(`${bad} cannot be a User Secret`) });
        expect(await rowsOf(projectId)).toEqual(before);
      }),
      { numRuns: 60 },
    );
    // Not a record at all, or a name that is not a string: refused the same way.
    for (const list of [[null], [{ name: 12 }], [{ name: { toString: () => 'PATH' } }], ['PATH']]) await expect(service.declareSecrets(projectId, list)).rejects.toMatchObject({ statusCode: 400 });
    expect(await rowsOf(projectId)).toEqual(before);
  });

  it('in the environment dialog of an analysis are refused, naming the variable, and nothing of it is stored', async () => {
    const projectId = await newProject('analysis');
    const environment = [
      { name: 'APP_KEY', description: 'key', value: 's3cret-value-1' },
      { name: 'COMPOSE_PROJECT_NAME', description: 'project', value: 'other' },
    ];
    await expect(app.services.planning.storeAnalysisSecrets(projectId, { environment, githubToken: 'ghs_x' })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('COMPOSE_PROJECT_NAME cannot be a User Secret'),
    });
    expect(await rowsOf(projectId)).toEqual([]);
  });

  it('a value stored under one before names were checked never reaches a step', async () => {
    const projectId = await newProject('legacy');
    const box = createSecretBox(randomBytes(32));
    const service = createUserSecrets({ db: database.db, secretBox: box, analysed: async () => undefined });
    for (const [name, value] of [['PATH', '/tmp/evil'], ['APP_SECRET', 'kept']] as const) {
      await database.db.insert(planningSecrets).values({ projectId, name, description: '', required: true, secretType: 'password', declared: true, ...box.seal(projectId, name, value) });
    }
    const values = await service.secretValues(projectId);
    // Still known (so it is redacted wherever it shows), but not part of any step's environment.
    expect(values).toEqual({ APP_SECRET: 'kept', PATH: '/tmp/evil' });
    expect(stepEnvironment(values)).toEqual({ APP_SECRET: 'kept' });
    expect(await database.db.select().from(planningSecrets).where(and(eq(planningSecrets.projectId, projectId), eq(planningSecrets.name, 'PATH')))).toHaveLength(1);
  });
});
