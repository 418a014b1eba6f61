import { Type, type Static } from 'typebox';
import { IdParam, Timestamp } from './common';

/**
 * A project's releases (GET /api/projects/{id}/releases), newest first: what each deploy ran, so "Roll
 * back" can name one. File texts stay on the server; the list names the files.
 */
export const ReleaseSummary = Type.Object({
  number: Type.Integer(),
  status: Type.Union([Type.Literal('live'), Type.Literal('superseded'), Type.Literal('rolled_back')]),
  created_at: Timestamp,
  directory: Type.String(),
  files: Type.Array(Type.String()),
  containers: Type.Array(Type.Object({ service: Type.String(), image: Type.String(), digest: Type.String(), ports: Type.Array(Type.String()) })),
  /** What happened to it when it did not simply come up (a failed health gate and what was restored). */
  note: Type.Union([Type.String(), Type.Null()]),
});
export type ReleaseSummary = Static<typeof ReleaseSummary>;

export const ReleaseList = Type.Object({ releases: Type.Array(ReleaseSummary) });
export type ReleaseList = Static<typeof ReleaseList>;

export const ReleaseParams = Type.Object({ id: IdParam, number: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });
export type ReleaseParams = Static<typeof ReleaseParams>;

/**
 * POST /api/projects/{id}/releases/{number}/rollback: the roll back is a step of the execution plan,
 * waiting for the person's approval (`POST /api/execution/approve-step` runs it); nothing runs yet.
 */
export const RollbackResponse = Type.Object({
  plan_id: Type.Integer(),
  step_number: Type.Integer(),
  /** The exact command the approval runs. */
  command: Type.String(),
  detail: Type.String(),
});
export type RollbackResponse = Static<typeof RollbackResponse>;

/** What a drift check compares, in the order the project home lists them. */
export const DriftKind = Type.Union([Type.Literal('containers'), Type.Literal('images'), Type.Literal('ports'), Type.Literal('firewall'), Type.Literal('cron'), Type.Literal('disk')]);
export type DriftKind = Static<typeof DriftKind>;

export const DriftDifference = Type.Object({
  kind: DriftKind,
  detail: Type.String(),
});
export type DriftDifference = Static<typeof DriftDifference>;

/** One read-only command of a drift check, as it ran in the sandbox, and what it printed. */
export const DriftCheckRun = Type.Object({
  title: Type.String(),
  command: Type.String(),
  output: Type.String(),
  exit_code: Type.Union([Type.Integer(), Type.Null()]),
});
export type DriftCheckRun = Static<typeof DriftCheckRun>;

/** GET/POST /api/projects/{id}/drift: the last check (null before the first), or the one just run. */
export const DriftCheck = Type.Object({
  checked_at: Timestamp,
  release: Type.Union([Type.Integer(), Type.Null()]),
  checks: Type.Array(DriftCheckRun),
  differences: Type.Array(DriftDifference),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type DriftCheck = Static<typeof DriftCheck>;

export const LastDriftCheck = Type.Object({ check: Type.Union([DriftCheck, Type.Null()]) });
export type LastDriftCheck = Static<typeof LastDriftCheck>;
