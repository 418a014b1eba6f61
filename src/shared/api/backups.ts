import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { Timestamp } from './common';

/**
 * The stack's backups (GET /api/projects/{id}/backups, POST …/backups/run with `kind`): the last backup and
 * the last restore drill the server reported, each with when, how long and how much; a failed one says
 * which step failed and what the server said. A run is a command in the project's sandbox that reaches
 * the server over the plan's SSH configuration: the person sees the command before pressing the button.
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
  /** The drill repeats the server's last backup (a nightly one the app has not seen yet). */
  last_backup: Type.Optional(Type.Union([Type.Null(), Type.Unknown()])),
});
export type ScriptResult = Static<typeof ScriptResult>;

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
      found.push(value);
      const last = (value as { last_backup?: unknown }).last_backup;
      if (last && Value.Check(ScriptResult, last)) found.push(last);
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
  snapshot: Type.Union([Type.String(), Type.Null()]),
  /** What failed, in words (null when it worked). */
  failure: Type.Union([Type.String(), Type.Null()]),
  checks: Type.Array(DrillCheck),
});
export type BackupRun = Static<typeof BackupRun>;

export const BackupsStatus = Type.Object({
  last_backup: Type.Union([BackupRun, Type.Null()]),
  last_drill: Type.Union([BackupRun, Type.Null()]),
  /** The last drill that passed: the last proven restore. */
  last_proven: Type.Union([BackupRun, Type.Null()]),
  /** The commands the buttons run, shown before they run. */
  commands: Type.Object({ backup: Type.String(), drill: Type.String() }),
});
export type BackupsStatus = Static<typeof BackupsStatus>;

export const RunBackupBody = Type.Object({ kind: Type.Union([Type.Literal('backup'), Type.Literal('drill')]) }, { additionalProperties: false });
export type RunBackupBody = Static<typeof RunBackupBody>;

export const RunBackupResponse = Type.Object({ run: BackupRun, status: BackupsStatus });
export type RunBackupResponse = Static<typeof RunBackupResponse>;

/** The failure of a run in words: the step and what the server said. */
export function failureInWords(r: Pick<ScriptResult, 'ok' | 'step' | 'detail'>): string | null {
  if (r.ok) return null;
  const said = (r.detail ?? '').trim().split('\n').filter(Boolean).slice(-3).join(' / ');
  return `Failed at "${r.step ?? 'an unknown step'}"${said ? `: ${said}` : ''}`;
}
