import type { FastifyInstance } from 'fastify';
import { activities, planningDocuments } from '../../../src/server/db/schema';
import { createActivityService, requirementsSummary } from '../../../src/server/services/activity/activityService';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { backfillActivityDays } from '../helpers/migrationFile';
import { recordSteps } from '../helpers/stepRecords';

const STAGES = ['requirements', 'architecture', 'implementation', 'execution', 'validation'];
const REQUIREMENTS = [
  'Summary:',
  'A Ghost blog with MySQL behind Caddy.',
  'Runs on one VPS.',
  'Backups nightly.',
  'A fourth line that is left out.',
  'Required Stack:',
  'ghost, mysql, caddy',
].join('\n');

describe.each(databaseKinds())('activity (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database);
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const get = (url: string, user: TestUser = alice) => app.inject({ method: 'GET', url, headers: user.headers });
  const installationOf = async (user: TestUser): Promise<number> => {
    const session = await app.services.sessions.resolve(user.cookie.split('=')[1]);
    return session!.installationId;
  };

  it('records project creation, each stage completed once, and the workflow with its requirements summary', async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'blog' } })).json();
    await database.db.insert(planningDocuments).values({ projectId: project.id, kind: 'requirements', content: REQUIREMENTS });
    // The server completes execution and validation only on its own record of their steps.
    await recordSteps(database.db, 'execution', project.id, ['completed']);
    await recordSteps(database.db, 'validation', project.id, ['completed']);
    for (const stage of STAGES) {
      const response = await app.inject({
        method: 'PUT',
        url: `/api/project-states/${project.id}/stages/${stage}`,
        headers: alice.headers,
        payload: { is_completed: true },
      });
      expect(response.statusCode).toBe(200);
    }
    // Saving a completed stage again records nothing new.
    await app.inject({ method: 'PUT', url: `/api/project-states/${project.id}/stages/validation`, headers: alice.headers, payload: { is_completed: true } });

    const response = await get('/api/users/current/activity/timeline');
    expect(response.statusCode).toBe(200);
    const list = response.json().activities as { activity_type: string; activity_data: Record<string, unknown>; created_at: string }[];
    expect(list.map((a) => a.activity_type)).toEqual([
      'PROJECT_WORKFLOW_COMPLETED',
      ...Array(5).fill('PROJECT_STAGE_COMPLETED'),
      'PROJECT_CREATED',
    ]);
    expect(list[0]!.activity_data).toEqual({
      project_id: project.id,
      project_name: 'blog',
      requirements_summary: 'A Ghost blog with MySQL behind Caddy.\nRuns on one VPS.\nBackups nightly.',
    });
    expect(list[1]!.activity_data).toMatchObject({ project_name: 'blog', stage_id: 'validation' });
    expect(Date.parse(list[0]!.created_at)).not.toBeNaN();

    const page = (await get('/api/users/current/activity/timeline?limit=2&offset=1')).json().activities;
    expect(page.map((a: { id: number }) => a.id)).toEqual([list[1], list[2]].map((a) => (a as unknown as { id: number }).id));
  });

  it('answers every day of the year with its count, the current year by default', async () => {
    const year = new Date().getUTCFullYear();
    const response = await get('/api/users/current/activity/grid');
    expect(response.statusCode).toBe(200);
    const days = response.json().activities as { date: string; count: number }[];
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    expect(days).toHaveLength(leap ? 366 : 365);
    expect(days[0]!.date).toBe(`${year}-01-01`);
    expect(days.at(-1)!.date).toBe(`${year}-12-31`);
    const today = new Date().toISOString().slice(0, 10);
    expect(days.find((d) => d.date === today)!.count).toBe(7);
    expect(days.reduce((sum, d) => sum + d.count, 0)).toBe(7);

    const y2024 = (await get('/api/users/current/activity/grid?year=2024')).json().activities;
    expect(y2024).toHaveLength(366);
    expect(y2024.every((d: { count: number }) => d.count === 0)).toBe(true);
  });

  it('counts the total and the streak of consecutive days up to today', async () => {
    expect((await get('/api/users/current/activity/stats')).json()).toEqual({ total_activities: 7, current_streak: 1 });

    const installationId = await installationOf(alice);
    const daysAgo = (n: number): Date => new Date(Date.now() - n * 86_400_000);
    await database.db.insert(activities).values([
      { installationId, activityType: 'DEPLOYMENT_COMPLETED', createdAt: daysAgo(1) },
      { installationId, activityType: 'DEPLOYMENT_COMPLETED', createdAt: daysAgo(2) },
      { installationId, activityType: 'VALIDATION_COMPLETED', createdAt: daysAgo(4) },
    ]);
    // Activities from before the per-day counts existed: the migration counts them.
    await backfillActivityDays(database);
    expect((await get('/api/users/current/activity/stats')).json()).toEqual({ total_activities: 10, current_streak: 3 });
  });

  it('a streak that ended yesterday still counts through today; one that ended earlier is 0', async () => {
    const installationId = await installationOf(alice);
    const statsAt = async (daysFromNow: number) =>
      createActivityService({ db: database.db, now: () => new Date(Date.now() + daysFromNow * 86_400_000) }).stats(installationId);
    // Activity today, 1 and 2 days ago: tomorrow (nothing yet that day) the streak still reads 3.
    expect((await statsAt(1)).current_streak).toBe(3);
    expect((await statsAt(2)).current_streak).toBe(0);
  });

  it('shows another tenant nothing', async () => {
    expect((await get('/api/users/current/activity/timeline', mallory)).json()).toEqual({ activities: [] });
    const grid = (await get('/api/users/current/activity/grid', mallory)).json().activities;
    expect(grid.every((d: { count: number }) => d.count === 0)).toBe(true);
    expect((await get('/api/users/current/activity/stats', mallory)).json()).toEqual({ total_activities: 0, current_streak: 0 });
  });

  it.each([
    '/api/users/current/activity/timeline?limit=0',
    '/api/users/current/activity/timeline?limit=201',
    '/api/users/current/activity/timeline?limit=abc',
    '/api/users/current/activity/timeline?offset=-1',
    '/api/users/current/activity/grid?year=1999',
    '/api/users/current/activity/grid?year=twenty',
  ])('answers 400 to %s', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toEqual(expect.any(String));
  });

  it('answers 401 without a session', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/users/current/activity/stats' })).statusCode).toBe(401);
  });

  it('serves the public configuration without a session: support address and the meter prices', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/public-config' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      support_email: 'support@localhost',
      rates: { mode: 'research_preview', input_per_million: 5, output_per_million: 20 },
    });
    const other = await buildTestApp(database, { env: { SUPPORT_EMAIL: 'help@example.com', PRICING_MODE: 'regular', PRICE_REGULAR_PER_MILLION_USD: '30' } });
    expect((await other.inject({ method: 'GET', url: '/api/public-config' })).json()).toEqual({
      support_email: 'help@example.com',
      rates: { mode: 'regular', input_per_million: 30, output_per_million: 30 },
    });
    await other.close();
  });
});

describe('requirementsSummary', () => {
  it('takes the first lines of the Summary, or nothing', () => {
    expect(requirementsSummary(REQUIREMENTS)).toBe('A Ghost blog with MySQL behind Caddy.\nRuns on one VPS.\nBackups nightly.');
    expect(requirementsSummary('Required Stack:\nnginx')).toBeUndefined();
    expect(requirementsSummary(null)).toBeUndefined();
  });
});
