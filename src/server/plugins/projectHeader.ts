import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors';
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
  const header = request.headers['project-id'];
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || raw.trim() === '') throw badRequest('Project-Id header is required');
  if (!/^[0-9]{1,15}$/.test(raw.trim())) throw badRequest('Project-Id header must be a project id (digits)');
  const projectId = Number(raw.trim());
  await request.server.services.projects.require(installationId, projectId);
  return { projectId, installationId };
}
