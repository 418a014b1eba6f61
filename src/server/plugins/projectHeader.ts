import type { FastifyRequest } from 'fastify';
import { DB_INT_MAX, ID_PATTERN } from '../../shared/api/common';
import { badRequest } from '../errors';
import type { SessionInfo } from '../services/auth/sessionStore';
import type { ProjectsService } from '../services/projects/projectsService';
import { authOf } from './session';

const PROJECT_ID = new RegExp(ID_PATTERN);

/** The project a call names by its Project-Id header, scoped to the caller. */
export interface ScopedProject {
  projectId: number;
  installationId: number;
}

/**
 * Resolves the `Project-Id` header within the caller's installation: 400 when it is missing or not a
 * number, 404 when the project is not the caller's (exactly like a missing one).
 */
export async function projectOf(request: FastifyRequest): Promise<ScopedProject> {
  const { installationId } = authOf(request);
  const projectId = projectIdHeader(request);
  await request.server.services.projects.require(installationId, projectId);
  return { projectId, installationId };
}

/** `projectOf` for the hot polls: the ownership is checked through `projects.requireRecent`'s short cache. */
export async function recentProjectOf(request: FastifyRequest): Promise<ScopedProject> {
  const { installationId } = authOf(request);
  const projectId = projectIdHeader(request);
  await request.server.services.projects.requireRecent(installationId, projectId);
  return { projectId, installationId };
}

/**
 * For a hot poll's `snapshotInMemory`: the project that `raw` (a path parameter, or the Project-Id
 * header when absent) names, when memory knows it to be the caller's; undefined when it is not a
 * project id or memory cannot tell (the route's own checks then answer). `projects` is the route's own
 * service, taken once when the route is made rather than through the server on every poll.
 */
export function ownedProjectInMemory(
  projects: Pick<ProjectsService, 'ownedInMemory'>,
  request: Pick<FastifyRequest, 'headers'>,
  auth: SessionInfo,
  raw: unknown = headerValue(request),
): number | undefined {
  if (typeof raw !== 'string' || !PROJECT_ID.test(raw)) return undefined;
  const projectId = Number(raw);
  return projects.ownedInMemory(auth.installationId, projectId) ? projectId : undefined;
}

function headerValue(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers['project-id'];
  return (Array.isArray(header) ? header[0] : header)?.trim();
}

function projectIdHeader(request: FastifyRequest): number {
  const raw = headerValue(request);
  if (raw === undefined || raw === '') throw badRequest('Project-Id header is required');
  if (!PROJECT_ID.test(raw)) throw badRequest(`Project-Id header must be a project id (digits, at most ${DB_INT_MAX})`);
  return Number(raw);
}
