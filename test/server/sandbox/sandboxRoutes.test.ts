import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SANDBOX_ERRORS } from '../../../src/shared/constants/sandbox';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { eq } from 'drizzle-orm';
import { planningDocuments, sandboxes } from '../../../src/server/db/schema';
import { serverInstanceId } from '../../../src/server/services/sandbox/instanceId';
import { databaseKinds, openTestDatabase, type DatabaseKind, type TestDatabase } from '../helpers/testDatabase';
import { engineAvailable, ENGINE, IMAGE, removeInstance, unmountUnder } from './dockerEngine';
import { readZip } from './zipHelpers';
import { until } from '../helpers/until';

/** Every driver this machine can run: the local one always, docker on a real engine (always in CI). */
const cases: Array<[DatabaseKind, 'local' | 'docker']> = [
  ...databaseKinds().map((kind) => [kind, 'local'] as [DatabaseKind, 'local']),
  ...(engineAvailable ? [[databaseKinds()[0]!, 'docker'] as [DatabaseKind, 'docker']] : []),
];

describe.each(cases)('sandbox routes (%s, %s driver)', (kind, driverKind) => {
  // A container per initialisation: seconds on a quiet machine, more on a shared CI machine.
  if (driverKind === 'docker') jest.setTimeout(120_000);
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;
  let username: string;

  const call = (user: TestUser | null, method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: user?.headers ?? {}, ...(payload ? { payload } : {}) });
  const createProject = async (user: TestUser, name: string): Promise<number> =>
    (await call(user, 'POST', '/api/projects', { name })).json().id;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-sandbox-routes-'));
    database = await openTestDatabase(kind);
    const driverEnv: Record<string, string> = driverKind === 'docker' ? { SANDBOX_DRIVER: 'docker', DOCKER_HOST: ENGINE, SANDBOX_DOCKER_IMAGE: IMAGE, SANDBOX_NETWORK: 'false' } : {};
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000', ...driverEnv } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = await createProject(alice, 'Sandboxed');
  });
  afterAll(async () => {
    await app.close();
    if (driverKind === 'docker') await removeInstance(await serverInstanceId(database.db));
    unmountUnder(dataDir);
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Our installation row id, read from the sandbox username `user_{installationId}_{projectId}`. */
  let installationRowId = 0;
  /** Runs a command in alice's sandbox through the service the execution stage uses. */
  const exec = (command: string) => app.services.sandbox.exec({ id: projectId, installationId: installationRowId }, command);

  it('answers 401 without a session', async () => {
    for (const [method, url] of [
      ['GET', `/api/sandbox/status/${projectId}`],
      ['POST', `/api/sandboxes/${projectId}/start`],
      ['GET', `/api/projects/${projectId}/workspace/download`],
    ] as const) {
      expect((await call(null, method, url)).statusCode).toBe(401);
    }
  });

  it('is CREATING before initialisation, then success and READY', async () => {
    expect((await call(alice, 'GET', `/api/sandbox/status/${projectId}`)).json()).toEqual({ status: 'CREATING' });
    const init = await call(alice, 'POST', `/api/sandbox/initialize/${projectId}`, {});
    expect(init.statusCode).toBe(200);
    expect(init.json()).toEqual({ status: 'success', detail: expect.any(String) });
    expect((await call(alice, 'GET', `/api/sandbox/status/${projectId}`)).json()).toEqual({ status: 'READY' });
    const status = await call(alice, 'GET', `/api/sandboxes/${projectId}/status`);
    expect(status.json()).toEqual({ container_status: 'Running', username: expect.stringMatching(new RegExp(`^user_\\d+_${projectId}$`)), last_sync_time: null });
    username = status.json().username;
    installationRowId = Number(username.split('_')[1]);
    expect((await call(alice, 'POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
  });

  it("names, at initialisation, each tool the implementation plan calls that the sandbox lacks, with its steps", async () => {
    const plan = [
      '## Step 1: Tools of the toolbox',
      '```bash',
      'hcloud version && aws --version && ansible-playbook --version && docker-compose version --short; ssh -V; rsync --version | head -1; jq --version',
      '```',
      '## Step 2: Tools it has not',
      '```bash',
      'doctl version',
      "az version --query '\"azure-cli\"'",
      '```',
      '## Step 3: Again',
      '```bash',
      'doctl account get',
      '```',
    ].join('\n');
    expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/preflight`)).json()).toEqual({ missing_tools: [], checked_at: expect.any(String) });
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: plan });
    expect((await call(alice, 'POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
    const preflight = await call(alice, 'GET', `/api/sandboxes/${projectId}/preflight`);
    expect(preflight.json()).toEqual({
      missing_tools: [
        { tool: 'doctl', steps: [2, 3] },
        { tool: 'az', steps: [2] },
      ],
      checked_at: expect.stringMatching(/^\d{4}-/),
    });
    // The tools it found do run there.
    expect((await exec('hcloud version && aws --version && ansible-playbook --version >/dev/null && docker-compose version --short')).exitCode).toBe(0);
    expect((await call(mallory, 'GET', `/api/sandboxes/${projectId}/preflight`)).statusCode).toBe(404);
  });

  it('answers creating to an initialisation asked while another is under way', async () => {
    const fresh = await createProject(alice, 'Twice');
    const first = call(alice, 'POST', `/api/sandbox/initialize/${fresh}`, {});
    // The second call comes once the first is under way: its row says CREATING.
    const provisioning = async (): Promise<string | undefined> =>
      (await database.db.select({ provisioning: sandboxes.provisioning }).from(sandboxes).where(eq(sandboxes.projectId, fresh)))[0]?.provisioning;
    await until(async () => (await provisioning()) === 'CREATING', 'the first initialisation to be under way');
    const second = await call(alice, 'POST', `/api/sandbox/initialize/${fresh}`, {});
    expect([(await first).json().status, second.json().status]).toEqual(['success', 'creating']);
    expect((await call(alice, 'GET', `/api/sandbox/status/${fresh}`)).json()).toEqual({ status: 'READY' });
  });

  it('answers FAILED with the detail when the sandbox cannot be created', async () => {
    const broken = await createProject(alice, 'Broken');
    fs.mkdirSync(path.join(dataDir, 'sandboxes'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'sandboxes', String(broken)), 'not a folder');
    const init = await call(alice, 'POST', `/api/sandbox/initialize/${broken}`, {});
    expect(init.json()).toEqual({ status: 'failed', detail: expect.stringMatching(/^Failed to initialize sandbox environment: /) });
    expect((await call(alice, 'GET', `/api/sandbox/status/${broken}`)).json()).toEqual({ status: 'FAILED' });
  });

  it("answers 404 for every call on another tenant's project", async () => {
    const routes = [
      ['GET', `/api/sandbox/status/${projectId}`],
      ['POST', `/api/sandbox/initialize/${projectId}`],
      ['GET', `/api/sandboxes/${projectId}/status`],
      ['POST', `/api/sandboxes/${projectId}/start`],
      ['POST', `/api/sandboxes/${projectId}/stop`],
      ['POST', `/api/sandboxes/${projectId}/backup`],
      ['GET', `/api/sandboxes/${projectId}/history`],
      ['GET', `/api/projects/${projectId}/workspace/download`],
      ['GET', `/api/sandboxes/${projectId}/workspace/folder_download?path=/home/${username}/workspace/`],
    ] as const;
    for (const [method, url] of routes) {
      const response = await call(mallory, method, url, method === 'POST' ? {} : undefined);
      expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
    }
    expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/status`)).json().container_status).toBe('Running');
  });

  it('downloads the workspace as {projectId}-working-directory.zip', async () => {
    await exec('echo "server {}" > terraform/main.tf');
    const response = await call(alice, 'GET', `/api/projects/${projectId}/workspace/download`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${projectId}-working-directory.zip"`);
    const entries = await readZip(response.rawPayload);
    expect(entries.get('terraform/main.tf')!.data.toString()).toBe('server {}\n');
    expect(entries.has('ssh-keys/')).toBe(true);
  });

  it('downloads a folder as user_{part}_{part}.zip and refuses paths leaving the workspace', async () => {
    const base = `/api/sandboxes/${projectId}/workspace/folder_download?path=`;
    const whole = await call(alice, 'GET', `${base}/home/${username}/workspace/`);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-disposition']).toBe(`attachment; filename="${username}.zip"`);
    expect((await readZip(whole.rawPayload)).has('terraform/main.tf')).toBe(true);
    const folder = await call(alice, 'GET', `${base}/home/${username}/workspace/terraform`);
    expect([...(await readZip(folder.rawPayload)).keys()]).toEqual(['main.tf']);

    // The two buttons give different zips: the working directory with its step history (.git), the
    // project folder with the project's files only (the history is not listed as a secret left out).
    const working = await readZip((await call(alice, 'GET', `/api/projects/${projectId}/workspace/download`)).rawPayload);
    const project = await readZip(whole.rawPayload);
    expect([...working.keys()].some((name) => name.startsWith('.git/'))).toBe(true);
    expect([...project.keys()].filter((name) => name === '.git' || name.startsWith('.git/'))).toEqual([]);
    expect([...project.keys()].filter((name) => !name.startsWith('.git/')).sort()).toEqual([...working.keys()].filter((name) => !name.startsWith('.git/')).sort());
    expect(project.get('SECRET-FILES-LEFT-OUT.txt')?.data.toString() ?? '').not.toContain('.git');

    await exec('ln -sfn /etc etc-link');
    for (const [query, status] of [
      [`/home/${username}/workspace/etc-link`, 400],
      [`/home/${username}/workspace/../../../etc`, 400],
      [`/home/${username}/workspace/terraform/..`, 400],
      ['/home/user_1_999/workspace/', 400],
      ['/etc/', 400],
      [`/home/${username}/workspace/missing`, 404],
    ] as const) {
      const response = await call(alice, 'GET', `${base}${encodeURIComponent(query)}`);
      expect({ query, status: response.statusCode }).toEqual({ query, status });
    }
  });

  it('backs up, records last_sync_time and lists the history', async () => {
    await app.services.sandbox.commitStep({ id: projectId, installationId: installationRowId }, 1, 'terraform init');
    const backup = await call(alice, 'POST', `/api/sandboxes/${projectId}/backup`);
    expect(backup.json()).toEqual({ status: 'success', last_sync_time: expect.stringMatching(/^\d{4}-/) });
    expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/status`)).json().last_sync_time).toBe(backup.json().last_sync_time);
    const history = await call(alice, 'GET', `/api/sandboxes/${projectId}/history`);
    expect(history.json().commits.map((c: { message: string }) => c.message)).toEqual(['Step 1: terraform init', 'Workspace created']);
  });

  it('aborts the stop with the spec message when the backup fails, and keeps the sandbox running', async () => {
    const backups = path.join(dataDir, 'sandboxes', String(projectId), 'backups');
    fs.renameSync(backups, `${backups}.away`);
    fs.writeFileSync(backups, 'in the way');
    try {
      const stop = await call(alice, 'POST', `/api/sandboxes/${projectId}/stop`);
      expect(stop.statusCode).toBe(409);
      expect(stop.json().detail).toContain(SANDBOX_ERRORS.stop);
      const backup = await call(alice, 'POST', `/api/sandboxes/${projectId}/backup`);
      expect(backup.json()).toEqual({ status: 'error', error: expect.any(String), last_sync_time: expect.any(String) });
      expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/status`)).json().container_status).toBe('Running');
    } finally {
      fs.rmSync(backups);
      fs.renameSync(`${backups}.away`, backups);
    }
  });

  it('stops after a backup, refuses downloads and backups while stopped, and starts with the files restored', async () => {
    await exec('echo "after last backup" > notes.txt');
    const stop = await call(alice, 'POST', `/api/sandboxes/${projectId}/stop`);
    expect(stop.json()).toEqual({ container_status: 'NotRunning', message: expect.any(String) });
    expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/status`)).json().container_status).toBe('NotRunning');
    expect((await call(alice, 'POST', `/api/sandboxes/${projectId}/backup`)).statusCode).toBe(409);
    expect((await call(alice, 'GET', `/api/projects/${projectId}/workspace/download`)).statusCode).toBe(409);
    expect((await call(alice, 'GET', `/api/sandboxes/${projectId}/history`)).statusCode).toBe(409);
    expect((await call(alice, 'POST', `/api/sandboxes/${projectId}/stop`)).json().container_status).toBe('NotRunning');

    const start = await call(alice, 'POST', `/api/sandboxes/${projectId}/start`);
    expect(start.json()).toEqual({ container_status: 'Running', message: expect.any(String) });
    expect((await exec('cat notes.txt terraform/main.tf')).output).toBe('after last backup\nserver {}\n');
  });
});
