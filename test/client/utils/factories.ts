import type { UserProfile } from '../../../src/shared/api/auth';
import type { Project } from '../../../src/shared/api/projects';
import type { ProjectState, Stage } from '../../../src/shared/api/stages';

let nextProjectId = 1;

export function resetFactoryIds(): void {
  nextProjectId = 1;
}

export function makeUser(overrides: Partial<UserProfile> = {}): UserProfile {
  return { avatar_url: 'https://avatars.example/alice.png', login: 'alice', name: 'Alice Liddell', ...overrides };
}

export function makeProject(overrides: Partial<Project> = {}): Project {
  const id = overrides.id ?? nextProjectId++;
  return {
    id,
    name: `Project ${id}`,
    description: `Description of project ${id}`,
    created_at: '2025-01-15T10:00:00.000Z',
    updated_at: '2025-02-20T12:30:00.000Z',
    ...overrides,
  };
}

/** The five stages the server creates with a project (ARCHITECTURE.md, "The wire contract"). */
export function makeStages(): Stage[] {
  const rows: Array<[string, string, string, string]> = [
    ['requirements', 'Requirements', 'Gather what the infrastructure must do', 'requirementsAgent'],
    ['architecture', 'Architecture', 'Plan the cloud architecture', 'cloudArchitectAgent'],
    ['implementation', 'Implementation', 'Plan the implementation steps', 'implementationPlanningAgent'],
    ['execution', 'Execution', 'Run the plan in the sandbox', 'executionAgent'],
    ['validation', 'Validation', 'Verify the deployed services', 'validationAgent'],
  ];
  return rows.map(([stage_id, name, description, agent_id], order) => ({
    stage_id,
    name,
    description,
    agent_id,
    order,
    is_enabled: true,
    is_active: order === 0,
    is_completed: false,
  }));
}

export function makeProjectState(projectId: number, overrides: Partial<ProjectState> = {}): ProjectState {
  return { projectId, current_stage_index: 0, stages: makeStages(), ...overrides };
}
