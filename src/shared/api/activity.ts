import { Type, type Static } from 'typebox';
import { ACTIVITY } from '../constants/activity';
import { Timestamp } from './common';

/**
 * The signed-in user's activity. Numeric query values arrive as strings: Fastify's ajv coerces them to
 * integers (coerceTypes) and fills the defaults (useDefaults) before these schemas check them, so the
 * handler sees numbers. Value.Check on a raw query would need `Value.Convert` first.
 */

/** Query of GET /api/users/current/activity/grid?year=2025 (default: the current year, UTC). */
export const ActivityGridQuery = Type.Object(
  { year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })) },
  { additionalProperties: false },
);
export type ActivityGridQuery = Static<typeof ActivityGridQuery>;

export const ActivityDay = Type.Object({
  /** 'YYYY-MM-DD' (UTC) */
  date: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }),
  count: Type.Integer({ minimum: 0 }),
});
export type ActivityDay = Static<typeof ActivityDay>;

/** GET /api/users/current/activity/grid: days with at least one activity, oldest first. */
export const ActivityGridResponse = Type.Object({ activities: Type.Array(ActivityDay) });
export type ActivityGridResponse = Static<typeof ActivityGridResponse>;

/** Query of GET /api/users/current/activity/timeline?limit=50&offset=0 (limit 1..200). */
export const ActivityTimelineQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ACTIVITY.timelineMaxLimit, default: ACTIVITY.timelineDefaultLimit }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000, default: ACTIVITY.timelineDefaultOffset }),
    ),
  },
  { additionalProperties: false },
);
export type ActivityTimelineQuery = Static<typeof ActivityTimelineQuery>;

/** Details of an activity; known keys are listed, others pass through. */
export const ActivityData = Type.Object(
  {
    project_id: Type.Optional(Type.Integer()),
    project_name: Type.Optional(Type.String()),
    requirements_summary: Type.Optional(Type.String()),
    /** Execution and validation step activities: the step that ended. */
    step_number: Type.Optional(Type.Integer()),
  },
  { additionalProperties: true },
);
export type ActivityData = Static<typeof ActivityData>;

/** One timeline entry. `activity_type` values other than `ACTIVITY_TYPES` are shown as unknown. */
export const Activity = Type.Object({
  id: Type.Integer(),
  activity_type: Type.String(),
  activity_data: ActivityData,
  created_at: Timestamp,
});
export type Activity = Static<typeof Activity>;

/** GET /api/users/current/activity/timeline: newest first. */
export const ActivityTimelineResponse = Type.Object({ activities: Type.Array(Activity) });
export type ActivityTimelineResponse = Static<typeof ActivityTimelineResponse>;

/** GET /api/users/current/activity/stats: `current_streak` in consecutive days up to today (UTC). */
export const ActivityStatsResponse = Type.Object({
  total_activities: Type.Integer({ minimum: 0 }),
  current_streak: Type.Integer({ minimum: 0 }),
});
export type ActivityStatsResponse = Static<typeof ActivityStatsResponse>;
