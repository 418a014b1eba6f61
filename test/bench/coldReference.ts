import fs from 'node:fs';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import Fastify from 'fastify';
import { holdsCluster, loadPglite, pgliteOptions } from '../../src/server/db/pglite';

/**
 * The cold-start and memory reference (issues 12 and 29): a minimal Fastify over PGlite in DATA_DIR with
 * the same migrations, answering /api/health once they are applied. PGlite is run as the server runs it
 * (db/pglite.ts: its settings, and a new data directory from PGLITE_TEMPLATE_FILE when the bench gives
 * the build's template), so that the comparison is of what the server adds. Nothing else: no plugins, no services.
 */
const directory = path.join(process.env.DATA_DIR!, 'pglite');
fs.mkdirSync(directory, { recursive: true });
const template = process.env.PGLITE_TEMPLATE_FILE && !holdsCluster(directory) ? new Blob([fs.readFileSync(process.env.PGLITE_TEMPLATE_FILE)]) : undefined;
const PGlite = await loadPglite();
const client = await PGlite.create(directory, { ...pgliteOptions(PGlite), loadDataDir: template });
await migrate(drizzle(client), { migrationsFolder: path.resolve(process.env.MIGRATIONS_DIR ?? 'migrations') });
const app = Fastify({ logger: false });
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
