import { Type, type Static } from 'typebox';
import { Timestamp } from './common';

/**
 * A repository the installation can see, as GET /api/github/repositories lists it and as the analyzer
 * takes it back in `repository_data`. Closed to extra fields: the server re-reads the repository by
 * `full_name` within the installation and never trusts the other fields a client sends.
 */
export const Repository = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    /** 'owner/name' */
    full_name: Type.String({ pattern: '^[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}$' }),
    description: Type.Union([Type.String({ maxLength: 2_000 }), Type.Null()]),
    private: Type.Boolean(),
    language: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
    stargazers_count: Type.Integer({ minimum: 0 }),
    updated_at: Type.Union([Timestamp, Type.Null()]),
    default_branch: Type.String({ minLength: 1, maxLength: 255 }),
  },
  { additionalProperties: false },
);
export type Repository = Static<typeof Repository>;

export const Branch = Type.Object({
  name: Type.String(),
  protected: Type.Boolean(),
  commit_sha: Type.String(),
});
export type Branch = Static<typeof Branch>;

/**
 * GET /api/github/repositories. With `requires_permission_request` the app must be granted repository
 * access first; `message` then says so (null when there is nothing to say).
 */
export const RepositoriesResponse = Type.Object({
  repositories: Type.Array(Repository),
  requires_permission_request: Type.Boolean(),
  message: Type.Union([Type.String(), Type.Null()]),
});
export type RepositoriesResponse = Static<typeof RepositoriesResponse>;

/** Query of GET /api/planning/repository/branches?repo_full_name=owner/name */
export const BranchesQuery = Type.Object(
  { repo_full_name: Repository.properties.full_name },
  { additionalProperties: false },
);
export type BranchesQuery = Static<typeof BranchesQuery>;

/** GET /api/planning/repository/branches */
export const BranchesResponse = Type.Object({ branches: Type.Array(Branch) });
export type BranchesResponse = Static<typeof BranchesResponse>;
