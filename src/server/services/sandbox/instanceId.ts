import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client';
import { serverInstance } from '../../db/schema';

/**
 * This server's id: read from its database, generated on the first start (8 hex digits). Concurrent
 * first starts of replicas agree: only one insert wins, and every one reads the row back.
 */
export async function serverInstanceId(db: Db): Promise<string> {
  await db
    .insert(serverInstance)
    .values({ singleton: true, id: randomBytes(4).toString('hex') })
    .onConflictDoNothing();
  const [row] = await db.select().from(serverInstance);
  return row!.id;
}
