import type { Project } from '../../shared/api/projects';

/** Travels with navigation to /app/{id}: the project, so the workspace need not load it again. */
export interface ProjectNavigationState {
  project?: Project;
  skipLoad?: boolean;
}

/** Travels with navigation back to /app after a payment (set by the payment success flow). */
export interface HomeNavigationState {
  paymentSuccess?: boolean;
}

export function projectNavigationState(project: Project): ProjectNavigationState {
  return { project, skipLoad: true };
}

/** Reads the project from navigation state when it is the one the URL names. */
export function projectFromState(state: unknown, projectId: number): Project | null {
  if (typeof state !== 'object' || state === null) return null;
  const { project, skipLoad } = state as ProjectNavigationState;
  if (!skipLoad || !project || project.id !== projectId) return null;
  return project;
}
