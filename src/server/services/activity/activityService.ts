import { and, desc, eq, gte, lt, lte, sql, sum } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { activities, activityDays } from '../../db/schema';
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

/** The database, or an open transaction (so an activity commits with its cause). */
export type ActivityWriter = Db | Tx;

const DAY_MS = 86_400_000;
/** Active days read at a time for the streak (most streaks end within the first page). */
const STREAK_PAGE = 64;
const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

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
    /**
     * Records one activity and counts it in its day (activity_days), in one transaction; pass a
     * transaction as `writer` to commit both with what caused them.
     */
    async record(entry: ActivityEntry, writer: ActivityWriter = db): Promise<void> {
      const write = async (tx: ActivityWriter): Promise<void> => {
        // created_at defaults to now(), the transaction's start: the day counted is the activity's own.
        await tx.insert(activities).values({
          installationId: entry.installationId,
          projectId: entry.projectId ?? null,
          activityType: entry.activityType,
          activityData: { ...(entry.projectId != null ? { project_id: entry.projectId } : {}), ...entry.data },
        });
        await tx
          .insert(activityDays)
          .values({ installationId: entry.installationId, day: sql`(now() at time zone 'UTC')::date`, count: 1 })
          .onConflictDoUpdate({ target: [activityDays.installationId, activityDays.day], set: { count: sql`${activityDays.count} + 1` } });
      };
      if (writer === db) await db.transaction(write);
      else await write(writer);
    },

    /** Every day of `year` (UTC), oldest first, with its number of activities (0 included): at most 366 rows read. */
    async grid(installationId: number, year: number): Promise<ActivityDay[]> {
      const start = new Date(Date.UTC(year, 0, 1));
      const end = new Date(Date.UTC(year + 1, 0, 1));
      const rows = await db
        .select({ day: activityDays.day, n: activityDays.count })
        .from(activityDays)
        .where(and(eq(activityDays.installationId, installationId), gte(activityDays.day, dayOf(start)), lt(activityDays.day, dayOf(end))));
      const counts = new Map(rows.map((r) => [r.day, r.n]));
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
      const [total] = await db.select({ n: sum(activityDays.count) }).from(activityDays).where(eq(activityDays.installationId, installationId));
      const today = new Date(Date.UTC(now().getUTCFullYear(), now().getUTCMonth(), now().getUTCDate())).getTime();
      // Active days newest first, a page at a time, only as far back as the streak goes.
      let expected: number | null = null;
      let streak = 0;
      let upTo = dayOf(new Date(today));
      for (;;) {
        const page = await db
          .select({ day: activityDays.day })
          .from(activityDays)
          .where(and(eq(activityDays.installationId, installationId), lte(activityDays.day, upTo)))
          .orderBy(desc(activityDays.day))
          .limit(STREAK_PAGE);
        for (const { day } of page) {
          expected ??= day === dayOf(new Date(today)) ? today : today - DAY_MS;
          if (day !== dayOf(new Date(expected))) return { total_activities: Number(total?.n ?? 0), current_streak: streak };
          streak += 1;
          expected -= DAY_MS;
        }
        if (page.length < STREAK_PAGE) break;
        upTo = dayOf(new Date(expected!));
      }
      return { total_activities: Number(total?.n ?? 0), current_streak: streak };
    },
  };
}

export type ActivityService = ReturnType<typeof createActivityService>;
