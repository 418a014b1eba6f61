import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../../src/server/db/client';
import { MIGRATIONS_DIR, pgliteTemplate } from '../helpers/databaseTemplates';

/** The rows of a statement: both drivers answer `{ rows }`, which the shared Drizzle type does not say. */
async function rows<T>(database: Database, statement: ReturnType<typeof sql>): Promise<T[]> {
  return ((await database.db.execute(statement)) as unknown as { rows: T[] }).rows;
}

/** What a start on a PGlite data directory holds (db/pglite.ts): a new one from the build's template, an existing one as it is. */
describe('PGlite data directory', () => {
  let root: string;
  let template: string;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'da-pglite-dir-'));
    template = path.join(root, 'template.tar');
    fs.writeFileSync(template, Buffer.from(await (await pgliteTemplate()).arrayBuffer()));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('starts a new data directory from the template, migrated, and keeps what was written across the next start', async () => {
    const dataDir = path.join(root, 'data');
    const first = await openDatabase({ migrationsDir: MIGRATIONS_DIR, dataDir, pgliteTemplate: template });
    const [migrations] = await rows<{ n: number }>(first, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(migrations!.n).toBe(fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).length);
    await first.db.execute(sql`create table kept (note text)`);
    await first.db.execute(sql`insert into kept values ('written on the first start')`);
    await first.close();

    // The directory now holds a cluster: the template is not loaded over it.
    const second = await openDatabase({ migrationsDir: MIGRATIONS_DIR, dataDir, pgliteTemplate: template });
    expect(await rows(second, sql`select note from kept`)).toEqual([{ note: 'written on the first start' }]);
    await second.close();
  });

  it("runs PostgreSQL with the server's shared buffers, whatever the data directory's postgresql.conf says", async () => {
    const database = await openDatabase({ migrationsDir: MIGRATIONS_DIR, dataDir: path.join(root, 'buffers'), pgliteTemplate: template });
    try {
      expect(await rows(database, sql`show shared_buffers`)).toEqual([{ shared_buffers: '16MB' }]);
    } finally {
      await database.close();
    }
  });
});
