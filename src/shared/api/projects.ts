import { Type, type Static } from 'typebox';
import { INPUT_LIMITS } from '../constants/foundation';
import { IdParam, Timestamp } from './common';

export const PROJECT_NAME_MAX = INPUT_LIMITS.projectNameMax;
export const PROJECT_DESCRIPTION_MAX = INPUT_LIMITS.projectDescriptionMax;

export const Project = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Project = Static<typeof Project>;

export const ProjectList = Type.Array(Project);
export type ProjectList = Static<typeof ProjectList>;

/** The largest page of GET /api/projects?limit=N. */
export const PROJECT_PAGE_MAX = 200;

/**
 * Query of GET /api/projects. Without `limit` the answer is every project, as it always was. With it,
 * the answer is the same array cut to one page (most recently updated first); the next page's URL is in
 * the `Link: <…>; rel="next"` header (none on the last page), and `X-Total-Count` counts them all.
 * `cursor` is opaque: only ever taken from a `Link` header.
 */
export const ProjectListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PROJECT_PAGE_MAX })),
    cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' })),
  },
  { additionalProperties: false },
);
export type ProjectListQuery = Static<typeof ProjectListQuery>;

/** POST /api/projects. The server trims the name; a blank name answers 400. */
export const CreateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: PROJECT_NAME_MAX }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: PROJECT_DESCRIPTION_MAX }), Type.Null()])),
});
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const ProjectParams = Type.Object({ id: IdParam });
export type ProjectParams = Static<typeof ProjectParams>;
