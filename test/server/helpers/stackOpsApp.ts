import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStackOpsModel, type ChatMessage, type StackOpsModel } from './stackOpsModel';
import { buildTestApp, signIn, type TestUser } from './testApp';
import { openTestDatabase, type DatabaseKind, type TestDatabase } from './testDatabase';

/**
 * The real app configured for a real model (an OpenAI-compatible endpoint, here the stack-operations model
 * server), with credit and one signed-in person: what the tests of the agents' stack-operation tool calls
 * share. `env` picks which agents stay offline and any limit a test needs lifted.
 */
export interface StackOpsApp {
  app: FastifyInstance;
  model: StackOpsModel;
  alice: TestUser;
  /** A call as alice, inside one of her projects. */
  call(projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown): Promise<LightMyRequestResponse>;
  newProject(name: string): Promise<number>;
  close(): Promise<void>;
}

export async function startStackOpsApp(kind: DatabaseKind, env: Record<string, string>): Promise<StackOpsApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-stackops-'));
  const database: TestDatabase = await openTestDatabase(kind);
  const model = await startStackOpsModel();
  const app = await buildTestApp(database, {
    env: {
      DATA_DIR: dataDir,
      SIGNUP_CREDIT_USD: '50',
      MODEL_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${model.url}/v1`,
      ...env,
    },
  });
  const alice = await signIn(app, 'alice');
  return {
    app,
    model,
    alice,
    call: (projectId, method, url, payload) =>
      app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined }),
    async newProject(name) {
      return (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
    },
    async close() {
      await app.close();
      await model.close();
      await database.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The tool answers the model read in a request: those after its last tool-calling message. */
export const toolAnswers = (messages: ChatMessage[]): string[] => messages.slice(messages.map((m) => m.role).lastIndexOf('assistant') + 1).map((m) => m.content ?? '');
