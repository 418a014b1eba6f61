import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTestApp, signIn } from '../helpers/testApp';
import { databaseKinds, openTestDatabase } from '../helpers/testDatabase';
import { openDatabase } from '../../../src/server/db/client';

describe('restart persistence', () => {
  it('keeps users, sessions, projects and stages across a restart of the server (PGlite data directory)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-restart-'));
    try {
      const first = await openTestDatabase('pglite', dataDir);
      const app1 = await buildTestApp(first);
      const user = await signIn(app1, 'alice');
      const project = (await app1.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name: 'kept' } })).json();
      await app1.inject({ method: 'PUT', url: `/api/project-states/${project.id}/stages/requirements`, headers: user.headers, payload: { is_completed: true } });
      await app1.close();
      await first.close();

      const second = await openDatabase({ migrationsDir: 'migrations', dataDir });
      const app2 = await buildTestApp(second);
      const list = await app2.inject({ method: 'GET', url: '/api/projects', headers: user.headers });
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual([project.id === list.json()[0].id ? expect.objectContaining({ id: project.id, name: 'kept' }) : null]);
      const state = (await app2.inject({ method: 'GET', url: `/api/project-states/${project.id}`, headers: user.headers })).json();
      expect(state.current_stage_index).toBe(1);
      expect(state.stages[0].is_completed).toBe(true);
      expect((await signIn(app2, 'alice')).installationId).toBe(user.installationId);
      await app2.close();
      await second.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.each(databaseKinds())('keeps the session valid across a rebuilt app on the same database (%s)', async (kind) => {
    const database = await openTestDatabase(kind);
    try {
      const app1 = await buildTestApp(database);
      const user = await signIn(app1, 'bob');
      await app1.close();
      const app2 = await buildTestApp(database);
      expect((await app2.inject({ method: 'GET', url: '/api/github/user', headers: user.headers })).json().login).toBe('bob');
      await app2.close();
    } finally {
      await database.destroy();
    }
  });
});
