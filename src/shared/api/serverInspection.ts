import { Type, type Static } from 'typebox';
import { ServerFacts } from '../stackModel';

/**
 * The inspection of the person's existing server before the architecture plan is final
 * (GET/POST /api/planning/server-inspection): the server generates one read-only command, the person reads
 * it and approves it, and only then it runs in the project's sandbox; what it found becomes the stack
 * model's serverFacts, which the plan is made again from.
 */

/** GET: whether the target can be inspected, the exact command that would run, and what the last one found. */
export const ServerInspectionOffer = Type.Object({
  /** Where the stack goes: the person's existing server (inspectable), a new machine (nothing on it yet), or not said yet. */
  target_kind: Type.Union([Type.Literal('existing'), Type.Literal('new'), Type.Literal('none')]),
  available: Type.Boolean(),
  /** Why not, in words, when not available (no server named yet, a new machine, no SSH key). */
  reason: Type.Optional(Type.String()),
  /** The server it reads: `deploy@203.0.113.7:2222`, or `$SERVER_USER@$SERVER_HOST:22` for one named by User Secrets. */
  target: Type.Optional(Type.String()),
  /** The User Secrets that name the server when the words did not (their values stay in the sandbox). */
  named_by_secrets: Type.Optional(Type.Array(Type.String())),
  /** The exact command; POST it back unchanged to approve it. */
  command: Type.Optional(Type.String()),
  /** What the last inspection of this target found (the stack model's serverFacts). */
  facts: Type.Optional(ServerFacts),
});
export type ServerInspectionOffer = Static<typeof ServerInspectionOffer>;

/** POST: the command exactly as shown (the approval); a changed one is refused with 409. */
export const ServerInspectionBody = Type.Object({ command: Type.String({ minLength: 1, maxLength: 20_000 }) }, { additionalProperties: false });
export type ServerInspectionBody = Static<typeof ServerInspectionBody>;

export const ServerInspectionResult = Type.Object({
  /** `failed`: the server was not reached or the command failed; `detail` says why, and the plan goes on without facts. */
  status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
  detail: Type.String(),
  facts: Type.Optional(ServerFacts),
  /** What could not be read (no Docker for this user, no Compose…): absent from the facts, not empty. */
  not_read: Type.Array(Type.String()),
  /** The command's last lines when it failed (secrets blanked). */
  output: Type.Optional(Type.String()),
});
export type ServerInspectionResult = Static<typeof ServerInspectionResult>;
