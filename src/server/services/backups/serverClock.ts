import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { BackupPaths } from '../../agents/offline/backupScripts';
import { serverZone, type ServerClock } from './backupSchedule';

/**
 * What the backup watch reads of the server besides the result files: its clock and zone (cron runs the
 * schedule in them), the schedule the installed cron entry holds (none when the entry is gone), and
 * whether a cron daemon runs. Printed as one JSON line after a marker; every value is cut to the
 * characters it may hold on the server, so what a server prints can never break the line.
 */

export const CLOCK_MARKER = 'STACK_BACKUP_CLOCK';

/** Shell lines (as_root defined before them): the clock line. */
export function readClockCommand(paths: BackupPaths): string[] {
  return [
    'now=$(date +%s); offset=$(date +%z | tr -cd "0-9+-")',
    // Debian keeps the zone's name in /etc/timezone; elsewhere /etc/localtime links into the zoneinfo tree.
    'zone=$( (cat /etc/timezone 2>/dev/null || readlink /etc/localtime 2>/dev/null | sed "s|.*/zoneinfo/||") | head -n 1 | tr -cd "A-Za-z0-9/_+-")',
    `if as_root test -f ${paths.cron}; then entry=true; schedule=$(as_root grep -v "^#" ${paths.cron} | grep -m 1 . | cut -d" " -f1-5 | tr -cd "0-9*/, -"); else entry=false; schedule=; fi`,
    // pgrep may be missing on a small image: then whether cron runs is unknown, not "no".
    'if ! command -v pgrep >/dev/null 2>&1; then daemon=null; elif pgrep -x cron >/dev/null || pgrep -x crond >/dev/null || pgrep -x busybox-crond >/dev/null; then daemon=true; else daemon=false; fi',
    `printf '${CLOCK_MARKER} {"now":%s,"offset":"%s","zone":"%s","cron_entry":%s,"schedule":"%s","cron_running":%s}\\n' "$now" "$offset" "$zone" "$entry" "$schedule" "$daemon"`,
  ];
}

const ClockLine = Type.Object({
  now: Type.Integer({ minimum: 0 }),
  offset: Type.String({ maxLength: 10 }),
  zone: Type.String({ maxLength: 100 }),
  cron_entry: Type.Boolean(),
  schedule: Type.String({ maxLength: 200 }),
  cron_running: Type.Union([Type.Boolean(), Type.Null()]),
});
type ClockLine = Static<typeof ClockLine>;

/** The server as the clock line says it is. */
export interface ServerCron {
  clock: ServerClock;
  /** The schedule the installed entry holds; undefined when the entry is gone (or holds none). */
  installedSchedule: string | undefined;
  cronEntry: boolean;
  /** null: the server could not say (no pgrep). */
  cronRunning: boolean | null;
}

/** The clock line of a watch's output, read with a JSON parser and checked; undefined when there is none. */
export function parseServerCron(output: string): ServerCron | undefined {
  const line = output.split('\n').find((l) => l.startsWith(`${CLOCK_MARKER} `));
  if (!line) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line.slice(CLOCK_MARKER.length + 1));
  } catch {
    return undefined;
  }
  if (!Value.Check(ClockLine, value)) return undefined;
  const v: ClockLine = value;
  const schedule = v.schedule.trim().replace(/\s+/g, ' ');
  return {
    clock: { now: v.now * 1000, zone: serverZone(v.zone, v.offset) },
    installedSchedule: v.cron_entry && schedule.split(' ').length === 5 ? schedule : undefined,
    cronEntry: v.cron_entry,
    cronRunning: v.cron_running,
  };
}
