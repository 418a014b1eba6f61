import { ACTIVITY, activityLevel } from '../../../shared/constants';

export interface HeatmapDay {
  /** 'YYYY-MM-DD' (UTC) */
  date: string;
  count: number;
  level: 0 | 1 | 2 | 3 | 4;
}

export interface Heatmap {
  /** Weekly columns, Sunday first; days before the first or after the last are null. */
  weeks: (HeatmapDay | null)[][];
  /** Month names and the column where each month starts. */
  months: { label: string; week: number }[];
  days: HeatmapDay[];
}

const DAY_MS = 86_400_000;

/**
 * The last 365 days up to `today` (UTC) as weekly columns with their levels. Days missing from
 * `counts` are at level 0, which is also the whole grid when the data failed to load.
 */
export function buildHeatmap(counts: ReadonlyMap<string, number>, today: Date): Heatmap {
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  const start = end - (ACTIVITY.gridDays - 1) * DAY_MS;
  const days: HeatmapDay[] = [];
  for (let t = start; t <= end; t += DAY_MS) {
    const date = new Date(t).toISOString().slice(0, 10);
    const count = counts.get(date) ?? 0;
    days.push({ date, count, level: activityLevel(count) });
  }
  const weeks: (HeatmapDay | null)[][] = [];
  const months: { label: string; week: number }[] = [];
  let column: (HeatmapDay | null)[] = Array(new Date(start).getUTCDay()).fill(null);
  let lastMonth = -1;
  for (const day of days) {
    const at = new Date(`${day.date}T00:00:00Z`);
    if (at.getUTCMonth() !== lastMonth) {
      lastMonth = at.getUTCMonth();
      months.push({ label: at.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' }), week: weeks.length });
    }
    column.push(day);
    if (column.length === 7) {
      weeks.push(column);
      column = [];
    }
  }
  if (column.length) weeks.push([...column, ...Array<null>(7 - column.length).fill(null)]);
  // A partial first month too narrow for its label gives way to the next one (GitHub does the same).
  if (months.length > 1 && months[1]!.week - months[0]!.week < 3) months.shift();
  return { weeks, months, days };
}
