import { Type, type Static } from 'typebox';

/** Every error answer of the API: `{ "detail": "Project name is required" }`. */
export const ErrorResponse = Type.Object({ detail: Type.String() }, { $id: 'ErrorResponse' });
export type ErrorResponse = Static<typeof ErrorResponse>;

/** Numeric id in a path, e.g. `/api/projects/{id}`; `^[0-9]{1,15}$` keeps it inside a safe integer. */
export const IdParam = Type.String({ pattern: '^[0-9]{1,15}$' });

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
