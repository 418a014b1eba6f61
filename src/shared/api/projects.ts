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

/** POST /api/projects. The server trims the name; a blank name answers 400. */
export const CreateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: PROJECT_NAME_MAX }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: PROJECT_DESCRIPTION_MAX }), Type.Null()])),
});
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const ProjectParams = Type.Object({ id: IdParam });
export type ProjectParams = Static<typeof ProjectParams>;
