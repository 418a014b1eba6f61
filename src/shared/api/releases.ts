import { Type, type Static } from 'typebox';
import { Timestamp } from './common';

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
});
export type ReleaseSummary = Static<typeof ReleaseSummary>;

export const ReleaseList = Type.Object({ releases: Type.Array(ReleaseSummary) });
export type ReleaseList = Static<typeof ReleaseList>;
