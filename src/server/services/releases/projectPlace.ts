import { and, asc, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { executionPlans, executionSteps, projects, releases } from '../../db/schema';
import type { StackPlace } from '../../agents/offline/backupScripts';
import { isOwnStackDirectory, placeIfValid, placeOfDirectory, placeOfProject, stackDirectoriesIn } from '../../agents/offline/stackPlace';

/**
 * A project's stack place on its server (stackPlace.ts). It is fixed once and stored with the project
 * (`projects.stack_directory`) the first time a plan or a step uses it, so a rename never moves the stack:
 * the name only seeds a new project's folder. Until then, in order:
 * - the directory its latest release recorded;
 * - the folder its executed steps worked in (a project deployed to `/opt/stack` before releases were
 *   recorded, or one renamed after its steps ran and before a release was read): its containers are there,
 *   and a new folder would start a second stack beside them, on the same ports;
 * - the place derived from its id and its name now.
 * Plans, releases, drift checks and backup reads all ask here, so they agree.
 */
export async function projectPlace(db: Db, projectId: number, options: { fix?: boolean } = {}): Promise<StackPlace> {
  const [project] = await db.select({ name: projects.name, stackDirectory: projects.stackDirectory }).from(projects).where(eq(projects.id, projectId));
  const stored = project?.stackDirectory ? placeIfValid(project.stackDirectory) : undefined;
  if (stored) return stored;
  const place = (await usedDirectory(db, projectId)) ?? placeOfProject({ id: projectId, name: project?.name ?? '' });
  if (!project || options.fix === false) return place;
  // Two first uses at once (a plan turn and a step) store one folder: the first write wins, both read it back.
  await db.update(projects).set({ stackDirectory: place.dir }).where(and(eq(projects.id, projectId), isNull(projects.stackDirectory)));
  const [now] = await db.select({ stackDirectory: projects.stackDirectory }).from(projects).where(eq(projects.id, projectId));
  return (now?.stackDirectory && placeIfValid(now.stackDirectory)) || place;
}

/** The folder the project's stack already stands in on the server: its latest release's, else its executed steps' last own one. */
async function usedDirectory(db: Db, projectId: number): Promise<StackPlace | undefined> {
  const [release] = await db.select({ directory: releases.directory }).from(releases).where(eq(releases.projectId, projectId)).orderBy(desc(releases.number)).limit(1);
  if (release) return placeOfDirectory(release.directory);
  const ran = await db
    .select({ command: executionSteps.command })
    .from(executionSteps)
    .innerJoin(executionPlans, eq(executionPlans.id, executionSteps.planId))
    .where(and(eq(executionPlans.projectId, projectId), isNotNull(executionSteps.startedAt)))
    .orderBy(asc(executionSteps.stepNumber));
  // Only folders that can be this project's: a step that read another project's folder did not put this stack there.
  const own = ran.flatMap((s) => stackDirectoriesIn(s.command ?? '')).filter((d) => isOwnStackDirectory(projectId, d));
  const last = own.pop();
  return last ? placeOfDirectory(last) : undefined;
}
