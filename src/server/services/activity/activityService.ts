import { and, count, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { activities } from '../../db/schema';
import type { Activity, ActivityDay, ActivityStatsResponse } from '../../../shared/api/activity';
import { REQUIREMENTS_SUMMARY_MAX_CHARS } from '../../../shared/constants/activity';
import { REQUIREMENTS_SECTION } from '../../../shared/constants/planning';
import { parseRequirementsDocument } from '../../../shared/requirementsDocument';

/** One thing that happened, as the code where it happened reports it. */
export interface ActivityEntry {
  /** Our installation row id (`authOf(request).installationId`). */
  installationId: number;
  /** A RECORDED_ACTIVITY_TYPES value, e.g. `DEPLOYMENT_COMPLETED`. */
  activityType: string;
  projectId?: number | null;
  /** Shown by the timeline; `project_name` and `requirements_summary` are the known keys. */
  data?: Record<string, unknown>;
}

/** Anything that can insert: the database or an open transaction (so an activity commits with its cause). */
export type ActivityWriter = Pick<Db, 'insert'>;

const DAY_MS = 86_400_000;
const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
const utcDay = sql<string>`to_char(${activities.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;

/** The first lines of the requirements document's Summary section, or undefined when there is none. */
export function requirementsSummary(document: string | undefined | null): string | undefined {
  if (!document) return undefined;
  const summary = parseRequirementsDocument(document).sections[REQUIREMENTS_SECTION.summary];
  if (!summary) return undefined;
  const lines = summary
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join('\n');
  return lines.length > REQUIREMENTS_SUMMARY_MAX_CHARS ? `${lines.slice(0, REQUIREMENTS_SUMMARY_MAX_CHARS)}...` : lines || undefined;
}

/**
 * The installation's activity: recorded where things happen, read by the activity overview and the
 * home timeline. Every read is scoped by installation.
 *
 * @example
 * ```ts
 * // From the execution or validation code, when a run ends:
 * await app.services.activity.record({
 *   installationId, projectId, activityType: RECORDED_ACTIVITY_TYPES.deploymentCompleted,
 *   data: { project_name: project.name, steps: 7 },
 * });
 * ```
 */
export function createActivityService({ db, now = () => new Date() }: { db: Db; now?: () => Date }) {
  return {
    /** Records one activity; pass a transaction as `writer` to commit it with what caused it. */
    async record(entry: ActivityEntry, writer: ActivityWriter = db): Promise<void> {
      await writer.insert(activities).values({
        installationId: entry.installationId,
        projectId: entry.projectId ?? null,
        activityType: entry.activityType,
        activityData: { ...(entry.projectId != null ? { project_id: entry.projectId } : {}), ...entry.data },
      });
    },

    /** Every day of `year` (UTC), oldest first, with its number of activities (0 included). */
    async grid(installationId: number, year: number): Promise<ActivityDay[]> {
      const start = new Date(Date.UTC(year, 0, 1));
      const end = new Date(Date.UTC(year + 1, 0, 1));
      const rows = await db
        .select({ day: utcDay, n: count() })
        .from(activities)
        .where(and(eq(activities.installationId, installationId), gte(activities.createdAt, start), lt(activities.createdAt, end)))
        .groupBy(utcDay);
      const counts = new Map(rows.map((r) => [r.day, Number(r.n)]));
      const days: ActivityDay[] = [];
      for (let t = start.getTime(); t < end.getTime(); t += DAY_MS) {
        const date = dayOf(new Date(t));
        days.push({ date, count: counts.get(date) ?? 0 });
      }
      return days;
    },

    /** Newest first. */
    async timeline(installationId: number, limit: number, offset: number): Promise<Activity[]> {
      const rows = await db
        .select()
        .from(activities)
        .where(eq(activities.installationId, installationId))
        .orderBy(desc(activities.createdAt), desc(activities.id))
        .limit(limit)
        .offset(offset);
      return rows.map((r) => ({
        id: r.id,
        activity_type: r.activityType,
        activity_data: r.activityData,
        created_at: r.createdAt.toISOString(),
      }));
    },

    /**
     * The total, and the streak: consecutive days (UTC) with any activity, ending today — or ending
     * yesterday when today has none yet, so a streak does not read 0 until the first action of the day.
     */
    async stats(installationId: number): Promise<ActivityStatsResponse> {
      const [total] = await db.select({ n: count() }).from(activities).where(eq(activities.installationId, installationId));
      const days = await db
        .selectDistinct({ day: utcDay })
        .from(activities)
        .where(eq(activities.installationId, installationId))
        .orderBy(desc(utcDay));
      const active = new Set(days.map((d) => d.day));
      const today = new Date(Date.UTC(now().getUTCFullYear(), now().getUTCMonth(), now().getUTCDate()));
      let cursor = active.has(dayOf(today)) ? today.getTime() : today.getTime() - DAY_MS;
      let streak = 0;
      while (active.has(dayOf(new Date(cursor)))) {
        streak += 1;
        cursor -= DAY_MS;
      }
      return { total_activities: Number(total?.n ?? 0), current_streak: streak };
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
