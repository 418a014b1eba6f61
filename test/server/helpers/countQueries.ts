import type { Database } from '../../../src/server/db/client';

interface QueryClient {
  query: (...args: unknown[]) => Promise<unknown>;
}

/** Counts the statements sent through the database's client (PGlite or the node-postgres pool) from now on. */
export function countQueries(database: Database): { count(): number } {
  const client = (database.db as unknown as { session: { client: QueryClient } }).session.client;
  const original = client.query.bind(client);
  let count = 0;
  client.query = (...args: unknown[]) => {
    count += 1;
    return original(...args);
  };
  return { count: () => count };
}
