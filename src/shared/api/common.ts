import { Type, type Static } from 'typebox';

/** Every error answer of the API: `{ "detail": "Project name is required" }`. */
export const ErrorResponse = Type.Object({ detail: Type.String() }, { $id: 'ErrorResponse' });
export type ErrorResponse = Static<typeof ErrorResponse>;

/** The largest value of the database's `integer` columns (ids, step numbers): 2^31 − 1. */
export const DB_INT_MAX = 2_147_483_647;

/**
 * Digits of an integer from 0 to 2^31 − 1 (leading zeros allowed): larger ids cannot exist in an
 * `integer` column, and PostgreSQL answers an error (not "no row") when asked for one.
 */
export const ID_PATTERN =
  '^0*([0-9]{1,9}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])$';

/** Numeric id in a path, e.g. `/api/projects/{id}`, within the database's integer range. */
export const IdParam = Type.String({ pattern: ID_PATTERN });

/** An integer a client sends that lands in an `integer` column (step numbers, plan ids). */
export const DbInteger = (options: { minimum?: number } = {}) => Type.Integer({ maximum: DB_INT_MAX, ...options });

export const ProjectIdParams = Type.Object({ projectId: IdParam });
export type ProjectIdParams = Static<typeof ProjectIdParams>;

/** ISO-8601 timestamp as the server sends it. */
export const Timestamp = Type.String({ format: 'date-time' });

export const MessageBody = Type.Object({
  message: Type.String({ maxLength: 20_000 }),
  thread_id: Type.Optional(Type.String({ maxLength: 200 })),
});
export type MessageBody = Static<typeof MessageBody>;

export const StatusResponse = Type.Object({ status: Type.String(), detail: Type.Optional(Type.String()) });
export type StatusResponse = Static<typeof StatusResponse>;

/**
 * A conversation read back so that a reloaded chat shows it again: the agent's latest thread in the
 * project (`thread_id` null while there is none), the model that answers it, and its messages as the
 * chat showed them, with the project's secrets redacted. GET /api/planning/threads/{agent},
 * GET /api/execution/thread, GET /api/devops-helper/thread.
 */
export const ChatThreadResponse = Type.Object({
  thread_id: Type.Union([Type.String(), Type.Null()]),
  model: Type.String(),
  messages: Type.Array(Type.Object({ role: Type.Enum(['user', 'assistant']), content: Type.String() })),
});
export type ChatThreadResponse = Static<typeof ChatThreadResponse>;
