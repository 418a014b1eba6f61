import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningDocuments, projects, projectStages } from '../../db/schema';
import { badRequest, conflict, notFound } from '../../errors';
import { PROJECT_DESCRIPTION_MAX, PROJECT_NAME_MAX, type CreateProjectBody, type Project } from '../../../shared/api/projects';
import type { ProjectState, Stage, StageUpdateBody } from '../../../shared/api/stages';
import { DEFAULT_STAGES } from '../stages/defaultStages';
import { RECORDED_ACTIVITY_TYPES } from '../../../shared/constants/activity';
import { requirementsSummary, type ActivityService } from '../activity/activityService';
import type { EventBus } from '../events/eventBus';
import { PROJECT_TOUCHED_TOPIC } from './touchProject';
import { assertConfirmable } from '../planning/planFindings';
import { createVersionedSnapshots, sharedOn, type Snapshot } from '../snapshots/versionedSnapshots';
import type { CompletionRefusal } from '../stages/stageGates';

type ProjectRow = typeof projects.$inferSelect;
type StageRow = typeof projectStages.$inferSelect;

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  description: row.description,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const toStage = (row: StageRow): Stage => ({
  stage_id: row.stageId,
  name: row.name,
  description: row.description,
  agent_id: row.agentId,
  order: row.order,
  is_enabled: row.isEnabled,
  is_active: row.isActive,
  is_completed: row.isCompleted,
});

/** One page of the project list: its projects and the cursor of the next page (none on the last). */
export interface ProjectPage {
  projects: Project[];
  next: string | null;
}

/**
 * What the list's ETag names: the installation's project count (X-Total-Count) and its projects'
 * updated_at (every write to a project moves it). Read once per change, on every replica alike.
 */
export interface ProjectListVersion {
  total: number;
  /** The latest and the sum of the projects' updated_at, in seconds since the epoch. */
  stamp: string;
}

export const BAD_CURSOR = 'cursor is not one this server gave: take it from the Link header of the previous page';

/** A page's position: the last project's updated_at in whole microseconds (PostgreSQL's precision) and its id. */
const encodeCursor = (micros: string, id: number): string => Buffer.from(`${micros}.${id}`).toString('base64url');
function decodeCursor(cursor: string): { micros: string; id: number } {
  const match = /^([0-9]{1,18})\.([0-9]{1,10})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw badRequest(BAD_CURSOR);
  return { micros: match[1]!, id: Number(match[2]) };
}

/** How many checked ownerships `requireRecent` remembers (the least recently used is dropped beyond). */
const MAX_OWNERS = 100_000;

/**
 * Projects and their staged workflow. Every method takes the caller's installation id and looks
 * the project up within it, so another tenant's project answers 404 exactly like a missing one.
 */
export function createProjectsService({
  db,
  activity,
  events,
  completionRefusal,
}: {
  db: Db;
  activity: Pick<ActivityService, 'record'>;
  events?: EventBus<unknown>;
  /** Why a stage may not be marked completed (the server's record of its steps), or null (stages/stageGates.ts). */
  completionRefusal?: CompletionRefusal;
}) {
  /**
   * `${installationId}:${projectId}` of projects known to be that installation's. A project never moves
   * to another installation and is never deleted, so no write can make an entry wrong: it is kept until
   * the least recently used is dropped. Map order is the order of use.
   */
  const owners = new Set<string>();
  /**
   * The same ownerships by installation, then project, as numbers: what a hot poll asks (`ownedInMemory`)
   * without building a key string and hashing it on every poll. Kept in step with `owners`.
   */
  const ownedBy = new Map<number, Set<number>>();
  const own = (installationId: number, projectId: number): void => {
    let projectIds = ownedBy.get(installationId);
    if (!projectIds) ownedBy.set(installationId, (projectIds = new Set()));
    projectIds.add(projectId);
  };
  const disown = (key: string): void => {
    const [installationId, projectId] = key.split(':').map(Number) as [number, number];
    const projectIds = ownedBy.get(installationId);
    projectIds?.delete(projectId);
    if (projectIds?.size === 0) ownedBy.delete(installationId);
  };

  async function findRow(installationId: number, projectId: number): Promise<ProjectRow> {
    const [row] = await db
      .select()
      .from(projects)
      .where(and(eq(projects.id, projectId), eq(projects.installationId, installationId)));
    if (!row) throw notFound('Project not found');
    return row;
  }

  /** Per installation: the list's version (its ETag), dropped after every write that changes the list or its order. */
  const versions = createVersionedSnapshots<number, ProjectListVersion>({
    load: async (installationId) => {
      // Exact numerics (a bigint sum of microseconds would overflow at a few thousand projects).
      const seconds = sql`extract(epoch from ${projects.updatedAt})`;
      const [row] = await db
        .select({ total: count(), stamp: sql<string>`coalesce(max(${seconds}), 0)::text || '/' || coalesce(sum(${seconds}), 0)::text` })
        .from(projects)
        .where(eq(projects.installationId, installationId));
      return { total: row?.total ?? 0, stamp: row?.stamp ?? '0/0' };
    },
    ...sharedOn(events, 'snapshots.project-list'),
  });
  // The event reaches every replica: each drops its own copy, and none announces it again.
  events?.subscribe(PROJECT_TOUCHED_TOPIC, (installationId) => versions.forget(installationId as number));

  async function stagesOf(projectId: number): Promise<StageRow[]> {
    return db.select().from(projectStages).where(eq(projectStages.projectId, projectId)).orderBy(asc(projectStages.order));
  }

  return {
    async list(installationId: number): Promise<Project[]> {
      const rows = await db
        .select()
        .from(projects)
        .where(eq(projects.installationId, installationId))
        .orderBy(desc(projects.updatedAt), desc(projects.id));
      return rows.map(toProject);
    },

    /** The list's version: compare its ETag before reading a page (a current one costs no query). */
    listVersion(installationId: number): Promise<Snapshot<ProjectListVersion>> {
      return versions.get(installationId);
    },

    /** One page of `list`, in the same order, after `cursor` (a keyset on the order's columns: no offset scan). */
    async listPage(installationId: number, limit: number, cursor?: string): Promise<ProjectPage> {
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const position = after
        ? sql`(${projects.updatedAt}, ${projects.id}) < (timestamptz 'epoch' + ${after.micros}::bigint * interval '1 microsecond', ${after.id})`
        : undefined;
      const rows = await db
        .select({ row: projects, micros: sql<string>`(extract(epoch from ${projects.updatedAt}) * 1000000)::bigint::text` })
        .from(projects)
        .where(and(eq(projects.installationId, installationId), position))
        .orderBy(desc(projects.updatedAt), desc(projects.id))
        .limit(limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return { projects: page.map((r) => toProject(r.row)), next: rows.length > limit && last ? encodeCursor(last.micros, last.row.id) : null };
    },

    async get(installationId: number, projectId: number): Promise<Project> {
      return toProject(await findRow(installationId, projectId));
    },

    /** Creates the project with its five stages in one transaction; the first stage is active. */
    async create(installationId: number, body: CreateProjectBody): Promise<Project> {
      const name = body.name.trim();
      if (!name) throw badRequest('name is required and cannot be blank');
      if (name.length > PROJECT_NAME_MAX) throw badRequest(`name must be at most ${PROJECT_NAME_MAX} characters`);
      const description = body.description?.trim() || null;
      if (description && description.length > PROJECT_DESCRIPTION_MAX) {
        throw badRequest(`description must be at most ${PROJECT_DESCRIPTION_MAX} characters`);
      }
      const created = await db.transaction(async (tx) => {
        const [row] = await tx.insert(projects).values({ installationId, name, description }).returning();
        await tx.insert(projectStages).values(
          DEFAULT_STAGES.map((s, order) => ({
            projectId: row!.id,
            stageId: s.stageId,
            agentId: s.agentId,
            name: s.name,
            description: s.description,
            order,
            isActive: order === 0,
          })),
        );
        await activity.record(
          { installationId, projectId: row!.id, activityType: RECORDED_ACTIVITY_TYPES.projectCreated, data: { project_name: name } },
          tx,
        );
        return toProject(row!);
      });
      versions.invalidate(installationId);
      return created;
    },

    /** Resolves a project id the caller named (path or Project-Id header) within their installation. */
    async require(installationId: number, projectId: number): Promise<ProjectRow> {
      return findRow(installationId, projectId);
    },

    /**
     * `require` for the hot polls: a project found to be the installation's is remembered, so a poll
     * with a current ETag costs no query at all. Only success is kept: another installation's project
     * (or a missing one) asks the database and answers 404 every time.
     */
    async requireRecent(installationId: number, projectId: number): Promise<{ id: number; installationId: number }> {
      const key = `${installationId}:${projectId}`;
      if (owners.delete(key)) {
        owners.add(key);
      } else {
        await findRow(installationId, projectId);
        owners.add(key);
        own(installationId, projectId);
        if (owners.size > MAX_OWNERS) {
          const oldest = owners.values().next().value as string;
          owners.delete(oldest);
          disown(oldest);
        }
      }
      return { id: projectId, installationId };
    },

    /**
     * Whether `requireRecent` has found the project to be the installation's (a hot poll answered before
     * any promise): false means "not known here", never "not the caller's" — ask `requireRecent`.
     */
    ownedInMemory(installationId: number, projectId: number): boolean {
      return ownedBy.get(installationId)?.has(projectId) ?? false;
    },

    async state(installationId: number, projectId: number): Promise<ProjectState> {
      const row = await findRow(installationId, projectId);
      const stages = await stagesOf(projectId);
      return { projectId, current_stage_index: row.currentStageIndex, stages: stages.map(toStage) };
    },

    /** Makes `stageId` the current stage and marks it active. Setting the current stage again changes nothing. */
    async setCurrentStage(installationId: number, projectId: number, stageId: string): Promise<{ current_stage_index: number; stage_id: string }> {
      await findRow(installationId, projectId);
      const moved = await db.transaction(async (tx) => {
        const [stage] = await tx
          .select()
          .from(projectStages)
          .where(and(eq(projectStages.projectId, projectId), eq(projectStages.stageId, stageId)));
        if (!stage) throw notFound(`Stage not found: ${stageId}`);
        await tx.update(projectStages).set({ isActive: true }).where(and(eq(projectStages.projectId, projectId), eq(projectStages.stageId, stageId)));
        await tx.update(projects).set({ currentStageIndex: stage.order, updatedAt: new Date() }).where(eq(projects.id, projectId));
        return { current_stage_index: stage.order, stage_id: stageId };
      });
      versions.invalidate(installationId); // updated_at moved: the list's order changed
      return moved;
    },

    /**
     * Merges the given fields into a stage and answers the merged stage. Completing a stage moves the
     * project to the next stage (if any) and marks that one active.
     *
     * @throws HttpError 409 when the stage is execution or validation and the server's record of its
     * steps does not say every one completed (whatever the browser believes), or when it is architecture
     * or implementation and the plan verifier found an error in its plan.
     */
    async updateStage(installationId: number, projectId: number, stageId: string, patch: StageUpdateBody): Promise<Stage> {
      const project = await findRow(installationId, projectId);
      if (patch.is_completed === true && completionRefusal) {
        const refusal = await completionRefusal(projectId, stageId);
        if (refusal) throw conflict(refusal);
      }
      // A plan the verifier found an error in is not confirmed: 409 names the first error.
      if (patch.is_completed === true) await assertConfirmable(db, projectId, stageId);
      const stage = await db.transaction(async (tx) => {
        const where = and(eq(projectStages.projectId, projectId), eq(projectStages.stageId, stageId));
        const [before] = await tx.select({ isCompleted: projectStages.isCompleted }).from(projectStages).where(where);
        const set: Partial<StageRow> = {};
        if (patch.is_completed !== undefined) set.isCompleted = patch.is_completed;
        if (patch.is_active !== undefined) set.isActive = patch.is_active;
        if (patch.is_enabled !== undefined) set.isEnabled = patch.is_enabled;
        const [updated] = Object.keys(set).length
          ? await tx.update(projectStages).set(set).where(where).returning()
          : await tx.select().from(projectStages).where(where);
        if (!updated) throw notFound(`Stage not found: ${stageId}`);
        const projectSet: Partial<ProjectRow> = { updatedAt: new Date() };
        if (patch.is_completed) {
          const next = updated.order + 1;
          const [nextStage] = await tx
            .update(projectStages)
            .set({ isActive: true })
            .where(and(eq(projectStages.projectId, projectId), eq(projectStages.order, next)))
            .returning({ order: projectStages.order });
          if (nextStage) projectSet.currentStageIndex = next;
          // Activity only when the stage becomes completed, not when a completed stage is saved again.
          if (before && !before.isCompleted) {
            const data = { project_name: project.name, stage_id: updated.stageId, stage_name: updated.name };
            await activity.record({ installationId, projectId, activityType: RECORDED_ACTIVITY_TYPES.stageCompleted, data }, tx);
            if (!nextStage) {
              const [requirements] = await tx
                .select({ content: planningDocuments.content })
                .from(planningDocuments)
                .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, 'requirements')));
              const summary = requirementsSummary(requirements?.content);
              await activity.record(
                {
                  installationId,
                  projectId,
                  activityType: RECORDED_ACTIVITY_TYPES.workflowCompleted,
                  data: { project_name: project.name, ...(summary ? { requirements_summary: summary } : {}) },
                },
                tx,
              );
            }
          }
        }
        await tx.update(projects).set(projectSet).where(eq(projects.id, projectId));
        return toStage(updated);
      });
      versions.invalidate(installationId);
      return stage;
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
