import { desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projects, releases } from '../../db/schema';
import type { StackPlace } from '../../agents/offline/backupScripts';
import { stackPlaceOf } from '../../agents/offline/stackPlace';

/**
 * A project's stack place on its server (stackPlace.ts): the directory its latest release recorded, so a
 * project deployed before places existed (to `/opt/stack`) keeps being planned, checked and backed up
 * there; else the place derived from the project's id and name. Plans, releases, drift checks and backup
 * reads all ask here, so they agree.
 */
export async function projectPlace(db: Db, projectId: number): Promise<StackPlace> {
  const [project] = await db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
  const [release] = await db.select({ directory: releases.directory }).from(releases).where(eq(releases.projectId, projectId)).orderBy(desc(releases.number)).limit(1);
  return stackPlaceOf({ id: projectId, name: project?.name ?? '' }, release?.directory);
}
