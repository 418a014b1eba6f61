import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { Timestamp } from './common';

/**
 * The stack's backups (GET /api/projects/{id}/backups, and …/backups/runs for the history): the last
 * backup and the last restore drill, each with when, how long and how much; a failed one says which step
 * failed and what the server said. A run is recorded from the step that ran it (the deploy plan's backup
 * step, the validation's restore drill): its exit status and the script's result line with restic's own
 * JSON output in it, never from what a step claims without them.
 */

export const BACKUP_RESULT_MARKER = 'STACK_BACKUP_RESULT';

/** One check of a drill: a restored database (tables, rows) or a volume (files). */
export const DrillCheck = Type.Object({
  what: Type.String({ maxLength: 200 }),
  ok: Type.Boolean(),
  tables: Type.Optional(Type.Integer({ minimum: 0 })),
  rows: Type.Optional(Type.Integer({ minimum: 0 })),
  files: Type.Optional(Type.Integer({ minimum: 0 })),
  load_errors: Type.Optional(Type.Integer({ minimum: 0 })),
  note: Type.Optional(Type.String({ maxLength: 500 })),
});
export type DrillCheck = Static<typeof DrillCheck>;

/** restic's own summary of a backup (`restic backup --json`, its `summary` message), as the script passes it on. */
export const ResticSummary = Type.Object({
  message_type: Type.Literal('summary'),
  snapshot_id: Type.String({ pattern: '^[0-9a-f]{8,64}$' }),
  total_bytes_processed: Type.Integer({ minimum: 0 }),
  data_added: Type.Integer({ minimum: 0 }),
  total_files_processed: Type.Integer({ minimum: 0 }),
});
export type ResticSummary = Static<typeof ResticSummary>;

/** One snapshot as `restic snapshots --json` lists it (the drill restores the latest one). */
export const ResticSnapshot = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  time: Type.String({ maxLength: 60 }),
  short_id: Type.Optional(Type.String({ pattern: '^[0-9a-f]{8}$' })),
});

/** What a server script prints on its last line after the marker (backupScripts.ts writes it). */
export const ScriptResult = Type.Object({
  kind: Type.Union([Type.Literal('backup'), Type.Literal('drill')]),
  ok: Type.Boolean(),
  started_at: Type.String({ maxLength: 40 }),
  seconds: Type.Integer({ minimum: 0 }),
  destination: Type.String({ maxLength: 500 }),
  step: Type.Optional(Type.String({ maxLength: 300 })),
  detail: Type.Optional(Type.String({ maxLength: 10_000 })),
  snapshot: Type.Optional(Type.String({ maxLength: 64 })),
  snapshot_time: Type.Optional(Type.String({ maxLength: 60 })),
  bytes: Type.Optional(Type.Integer({ minimum: 0 })),
  added: Type.Optional(Type.Integer({ minimum: 0 })),
  files: Type.Optional(Type.Integer({ minimum: 0 })),
  sources: Type.Optional(Type.Integer({ minimum: 0 })),
  checks: Type.Optional(Type.Array(DrillCheck, { maxItems: 200 })),
  /** A backup's restic summary line, untouched: snapshot, bytes and files are read from it. */
  restic: Type.Optional(Type.Unknown()),
  /** A drill's `restic snapshots --json` of the snapshot it restored, untouched. */
  restic_snapshots: Type.Optional(Type.Unknown()),
  /** The drill repeats the server's last backup (a nightly one the app has not seen yet). */
  last_backup: Type.Optional(Type.Union([Type.Null(), Type.Unknown()])),
});
export type ScriptResult = Static<typeof ScriptResult>;

/**
 * A result with restic's own words read into it: the snapshot, bytes and files of a backup from restic's
 * summary, the snapshot and its time of a drill from restic's listing. A success whose restic output is
 * missing or not restic's shape is no success: it is turned into a failure saying so.
 */
function withRestic(r: ScriptResult): ScriptResult {
  if (!r.ok) return r;
  if (r.kind === 'backup') {
    if (!Value.Check(ResticSummary, r.restic)) return { ...r, ok: false, step: 'read restic\'s summary', detail: 'the backup reported success without a restic summary of it' };
    const sum = r.restic;
    return { ...r, snapshot: sum.snapshot_id.slice(0, 8), bytes: sum.total_bytes_processed, added: sum.data_added, files: sum.total_files_processed };
  }
  const list = Array.isArray(r.restic_snapshots) ? (r.restic_snapshots as unknown[]) : [];
  const latest = list[list.length - 1];
  if (!Value.Check(ResticSnapshot, latest)) return { ...r, ok: false, step: 'read restic\'s snapshot list', detail: 'the drill reported success without restic naming the snapshot it restored' };
  return { ...r, snapshot: latest.short_id ?? latest.id.slice(0, 8), snapshot_time: latest.time };
}

/**
 * The results in a command's output: each line that starts with the marker, parsed as JSON and checked
 * against the schema (a line that is neither is skipped, never guessed at).
 */
export function parseScriptResults(output: string): ScriptResult[] {
  const found: ScriptResult[] = [];
  for (const line of output.split('\n')) {
    const at = line.indexOf(`${BACKUP_RESULT_MARKER} `);
    if (at !== 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line.slice(BACKUP_RESULT_MARKER.length + 1));
    } catch {
      continue;
    }
    if (Value.Check(ScriptResult, value)) {
      found.push(withRestic(value));
      const last = (value as { last_backup?: unknown }).last_backup;
      if (last && Value.Check(ScriptResult, last)) found.push(withRestic(last));
    }
  }
  return found;
}

/** A run as the app recorded it. */
export const BackupRun = Type.Object({
  id: Type.Integer(),
  kind: Type.Union([Type.Literal('backup'), Type.Literal('drill')]),
  ok: Type.Boolean(),
  started_at: Timestamp,
  seconds: Type.Integer({ minimum: 0 }),
  destination: Type.String(),
  /** Bytes backed up (backup), or restored (drill). */
  bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  /** Bytes the backup added to the repository (after restic's deduplication). */
  added: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  snapshot: Type.Union([Type.String(), Type.Null()]),
  /** What failed, in words (null when it worked). */
  failure: Type.Union([Type.String(), Type.Null()]),
  checks: Type.Array(DrillCheck),
});
export type BackupRun = Static<typeof BackupRun>;

/**
 * A nightly backup that did not run when its cron schedule said (no result to read: cron stopped, its
 * entry gone, the server off): since the first due time missed after the last backup started.
 */
export const BackupOverdue = Type.Object({
  /** The first due time missed. */
  since: Timestamp,
  /** The latest due time missed. */
  due_at: Timestamp,
  /** How many due times were missed since the last backup. */
  missed: Type.Integer({ minimum: 1 }),
  /** When it was due, the last run, and what to check on the server, in words. */
  detail: Type.String(),
});
export type BackupOverdue = Static<typeof BackupOverdue>;

export const BackupsStatus = Type.Object({
  last_backup: Type.Union([BackupRun, Type.Null()]),
  last_drill: Type.Union([BackupRun, Type.Null()]),
  /** The last drill that passed: the last proven restore. */
  last_proven: Type.Union([BackupRun, Type.Null()]),
  /** null: no due time was missed since the last backup started. */
  overdue: Type.Union([BackupOverdue, Type.Null()]),
});
export type BackupsStatus = Static<typeof BackupsStatus>;

export const BackupRunsQuery = Type.Object(
  {
    kind: Type.Optional(Type.Union([Type.Literal('backup'), Type.Literal('drill')])),
    /** 1–100 (a query string holds text: the app does not coerce types). */
    limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$' })),
  },
  { additionalProperties: false },
);
export type BackupRunsQuery = Static<typeof BackupRunsQuery>;

export const BackupRunList = Type.Object({ runs: Type.Array(BackupRun) });
export type BackupRunList = Static<typeof BackupRunList>;

/** The failure of a run in words: the step and what the server said. */
export function failureInWords(r: Pick<ScriptResult, 'ok' | 'step' | 'detail'>): string | null {
  if (r.ok) return null;
  const said = (r.detail ?? '').trim().split('\n').filter(Boolean).slice(-3).join(' / ');
  return `Failed at "${r.step ?? 'an unknown step'}"${said ? `: ${said}` : ''}`;
}
