import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { eq } from 'drizzle-orm';
import { installations } from '../../../src/server/db/schema';
import { buildApp, type BuildOptions } from '../../../src/server/app';
import { loadConfig, type AppConfig } from '../../../src/server/config';
import type { Database } from '../../../src/server/db/client';

export interface TestUser {
  login: string;
  installationId: number;
  cookie: string;
  /** Headers a browser of this user sends: the session cookie, its Installation-Id and the app's Origin. */
  headers: Record<string, string>;
}

/** A configuration as `npm start` would load it, with overrides from a test. */
export function testConfig(env: Record<string, string> = {}): AppConfig {
  // Workspaces of 512 MB: each is reserved on the disk for real, and test runs start many sandboxes side by side.
  return loadConfig({ DATA_DIR: '/tmp/devops-agents-test', STATIC_DIR: '/nonexistent', SANDBOX_DISK_MB: '512', ...env });
}

/** Builds the real app on the given database, quiet, ready for `app.inject`. */
export async function buildTestApp(
  database: Database,
  options: Partial<Omit<BuildOptions, 'database'>> & { env?: Record<string, string> } = {},
): Promise<FastifyInstance> {
  const app = await buildApp({ config: testConfig(options.env), logger: false, ...options, database });
  await app.ready();
  return app;
}

export function sessionCookieOf(response: LightMyRequestResponse): string {
  const setCookie = response.headers['set-cookie'];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!first) throw new Error(`no session cookie in response ${response.statusCode}: ${response.body}`);
  return first.split(';')[0]!;
}

/** Signs in through the local provider, as the sign-in page does. */
export async function signIn(app: FastifyInstance, login: string): Promise<TestUser> {
  const response = await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login } });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  const cookie = sessionCookieOf(response);
  const installationId = response.json<{ installation_id: number }>().installation_id;
  const origin = new URL(app.config.publicUrl).origin;
  return { login, installationId, cookie, headers: { cookie, 'installation-id': String(installationId), origin } };
}

/** Our row id of a user's installation (what services take), from the public id the browser holds. */
export async function installationRowId(database: Database, user: TestUser): Promise<number> {
  const [row] = await database.db.select({ id: installations.id }).from(installations).where(eq(installations.publicId, user.installationId));
  if (!row) throw new Error(`no installation ${user.installationId}`);
  return row.id;
}

/**
 * Environment that makes every agent answer with a priced model (OpenAI's, never reached: a turn refused
 * for credit makes no call). The offline planner is free (FREE_MODELS), so a test of the 402 needs this.
 */
export const PRICED_MODEL_ENV: Readonly<Record<string, string>> = { MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test-never-called', OPENAI_MODEL: 'gpt-4o-mini' };

/** Spends `user`'s whole balance (and more) through the meter, as a run of priced model calls would. */
export async function spendAllCredits(app: FastifyInstance, user: TestUser, projectId: number, agent: string): Promise<void> {
  const session = await app.services.sessions.resolve(user.cookie.split('=')[1]!);
  await app.services.meter.record({ installationId: session!.installationId, projectId, agent, model: 'gpt-4o-mini', inputTokens: 1_000_000, outputTokens: 0 });
}
