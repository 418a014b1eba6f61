import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import Fastify from 'fastify';

/**
 * The cold-start reference (issue 12): a minimal Fastify over PGlite in DATA_DIR with the same
 * migrations, answering /api/health once they are applied. Nothing else: no plugins, no services.
 */
const dataDir = process.env.DATA_DIR!;
const client = await PGlite.create(path.join(dataDir, 'pglite'));
await migrate(drizzle(client), { migrationsFolder: path.resolve(process.env.MIGRATIONS_DIR ?? 'migrations') });
const app = Fastify({ logger: false });
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
