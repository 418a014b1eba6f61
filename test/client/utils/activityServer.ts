import { http, HttpResponse } from 'msw';
import type {
  Activity,
  ActivityDay,
  ActivityGridResponse,
  ActivityStatsResponse,
  ActivityTimelineResponse,
} from '../../../src/shared/api/activity';
import type { PublicConfigResponse } from '../../../src/shared/api/publicConfig';

const api = (path: string): string => `http://localhost/api${path}`;

/** What the activity and public-config handlers serve; tests set it, `resetActivityDb()` runs after each. */
export const activityDb = {
  /** Days with activity; the grid answers every day of the asked year. */
  days: [] as ActivityDay[],
  timeline: [] as Activity[],
  stats: { total_activities: 0, current_streak: 0 } as ActivityStatsResponse,
  publicConfig: {
    support_email: 'support@localhost',
    rates: { mode: 'research_preview', input_per_million: 5, output_per_million: 20 },
  } as PublicConfigResponse,
};

export function resetActivityDb(): void {
  activityDb.days = [];
  activityDb.timeline = [];
  activityDb.stats = { total_activities: 0, current_streak: 0 };
  activityDb.publicConfig = {
    support_email: 'support@localhost',
    rates: { mode: 'research_preview', input_per_million: 5, output_per_million: 20 },
  };
}

/** Like the server: every day of the year, oldest first. */
function gridOf(year: number): ActivityGridResponse {
  const counts = new Map(activityDb.days.map((d) => [d.date, d.count]));
  const activities: ActivityDay[] = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    activities.push({ date, count: counts.get(date) ?? 0 });
  }
  return { activities };
}

export const activityHandlers = [
  http.get<never, never, ActivityGridResponse>(api('/users/current/activity/grid'), ({ request }) => {
    const year = Number(new URL(request.url).searchParams.get('year') ?? new Date().getUTCFullYear());
    return HttpResponse.json(gridOf(year));
  }),
  http.get<never, never, ActivityTimelineResponse>(api('/users/current/activity/timeline'), ({ request }) => {
    const params = new URL(request.url).searchParams;
    const limit = Number(params.get('limit') ?? 50);
    const offset = Number(params.get('offset') ?? 0);
    return HttpResponse.json({ activities: activityDb.timeline.slice(offset, offset + limit) });
  }),
  http.get<never, never, ActivityStatsResponse>(api('/users/current/activity/stats'), () => HttpResponse.json(activityDb.stats)),
  http.get<never, never, PublicConfigResponse>(api('/public-config'), () => HttpResponse.json(activityDb.publicConfig)),
];
