import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { projects } from '../../db/schema';

/**
 * On the app's event bus: a write elsewhere (a document, a step's outcome) moved the updated_at of a
 * project of this installation (the event), so the list's order and its ETag changed.
 */
export const PROJECT_TOUCHED_TOPIC = 'projects.touched';

/** Moves a project's 'Last Updated' (and its place in the list); answers its installation, to announce after commit. */
export async function touchProject(db: Db | Tx, projectId: number): Promise<number | undefined> {
  const [row] = await db.update(projects).set({ updatedAt: new Date() }).where(eq(projects.id, projectId)).returning({ installationId: projects.installationId });
  return row?.installationId;
}
