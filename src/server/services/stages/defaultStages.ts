import type { AgentId, StageId } from '../../../shared/api/stages';

export interface StageDefinition {
  stageId: StageId;
  agentId: AgentId;
  name: string;
  description: string;
}

/** The five stages every project is created with, in order (ARCHITECTURE.md, "The wire contract"). */
export const DEFAULT_STAGES: readonly StageDefinition[] = [
  { stageId: 'requirements', agentId: 'requirementsAgent', name: 'Requirements', description: 'Gather what your infrastructure needs, optionally from a repository' },
  { stageId: 'architecture', agentId: 'cloudArchitectAgent', name: 'Cloud Architecture', description: 'Design the architecture plan and its docker-compose stack' },
  { stageId: 'implementation', agentId: 'implementationPlanningAgent', name: 'Implementation Plan', description: 'Turn the architecture into ordered, concrete steps' },
  { stageId: 'execution', agentId: 'executionAgent', name: 'Execution', description: 'Run each step in your sandbox after you approve it' },
  { stageId: 'validation', agentId: 'validationAgent', name: 'Validation', description: 'Verify the deployed infrastructure and generate documentation' },
];
