import closeWithGrace from 'close-with-grace';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';
import { secureDataDir } from './dataDir';
import { openDatabase } from './db/client';
import { builtPgliteTemplate } from './db/pglite';

/** Starts the product: validate configuration, open and migrate the database, listen, shut down gracefully. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every setting.\n`);
      process.exit(1);
    }
    throw err;
  }
  secureDataDir(config.dataDir);
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplate: builtPgliteTemplate(),
    migrationsDir: config.migrationsDir,
    onIdleError: (err) => process.stderr.write(`database connection lost (the pool reconnects on the next query): ${err.message}\n`),
  });
  const app = await buildApp({ config, database });
  await app.services.sessions.prune();

  // Bounded: what is not closed within SHUTDOWN_TIMEOUT_SECONDS is cut. The sandbox processes are
  // ended first, so none outlives the server (a pty shell left running can also keep the exit waiting).
  closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      onTimeout: (delay) => {
        app.log.error(`shutdown took longer than ${delay} ms: ending the sandbox processes and exiting`);
        app.services.sandbox.killAll();
      },
      onSecondSignal: (signal) => {
        app.log.error({ signal }, 'second signal during shutdown: ending the sandbox processes and exiting');
        app.services.sandbox.killAll();
        process.exit(1);
      },
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'shutting down after an error');
      else app.log.info({ signal }, 'shutting down: finishing requests in flight');
      await app.close();
      await database.close();
    },
  );

  await app.listen({ host: config.host, port: config.port });
  app.log.info(`DevOps Agents is ready on ${config.publicUrl} (database: ${database.kind})`);
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
