import type { FastifyRequest } from 'fastify';
import { DB_INT_MAX, ID_PATTERN } from '../../shared/api/common';
import { badRequest } from '../errors';

const PROJECT_ID = new RegExp(ID_PATTERN);
import { authOf } from './session';

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

function projectIdHeader(request: FastifyRequest): number {
  const header = request.headers['project-id'];
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw.trim() === '') throw badRequest('Project-Id header is required');
  if (!PROJECT_ID.test(raw.trim())) throw badRequest(`Project-Id header must be a project id (digits, at most ${DB_INT_MAX})`);
  return Number(raw.trim());
}
