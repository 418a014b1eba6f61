import { CronExpressionParser } from 'cron-parser';

/**
 * When the nightly backup was last due, and whether it is overdue. Cron on the server reads its schedule
 * in the server's own time zone, so the due time is computed in that zone from the server's clock, never
 * from this app's. A run writes its result when it ends, not when it starts: a due time counts only once
 * its grace has passed (the longest a backup may take), so a backup still running is not yet called missed.
 */

/** The server's clock as its read-only command printed it. */
export interface ServerClock {
  /** Milliseconds since the epoch on the server. */
  now: number;
  /** A zone cron-parser reads: an IANA name (`Europe/Paris`) or a fixed offset (`UTC+01:00`). */
  zone: string;
}

/** `+0130` (date +%z) as the fixed-offset zone `UTC+01:30`; undefined when it is not one. */
export function zoneOfOffset(offset: string): string | undefined {
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset.trim());
  return m ? `UTC${m[1]}${m[2]}:${m[3]}` : undefined;
}

/** Whether the zone name is one the runtime knows (a name from /etc/timezone may be anything). */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The zone cron uses on the server: its named zone when the runtime knows it (daylight saving then moves
 * the due time as it moves cron), else the fixed offset `date +%z` printed, else UTC.
 */
export function serverZone(name: string, offset: string): string {
  if (name && knownZone(name)) return name;
  return zoneOfOffset(offset) ?? 'UTC';
}

/**
 * The last time the schedule fell due at or before `now - grace` on the server's clock: the latest due
 * time a finished run must have reported by now. Throws on an expression cron-parser refuses.
 */
export function lastDue(schedule: string, clock: ServerClock, graceMs: number): Date {
  return CronExpressionParser.parse(schedule, { currentDate: new Date(clock.now - graceMs), tz: clock.zone }).prev().toDate();
}

/** A due time no run answered: when it was due, and the last start the app knows (null: none). */
export interface MissedRun {
  dueAt: Date;
  lastStartedAt: Date | null;
}

/**
 * The due time the last backup missed, if it did: overdue when no backup started at or after the last
 * due time whose grace has passed. A run that started and failed is not missed (cron ran it; its failure
 * is notified on its own).
 */
export function missedRun(schedule: string, clock: ServerClock, graceMs: number, lastStartedAt: Date | null): MissedRun | undefined {
  const dueAt = lastDue(schedule, clock, graceMs);
  if (lastStartedAt && lastStartedAt.getTime() >= dueAt.getTime()) return undefined;
  return { dueAt, lastStartedAt };
}
