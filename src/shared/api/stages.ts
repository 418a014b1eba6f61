import { Type, type Static } from 'typebox';
import { IdParam } from './common';

/** Stage ids in order, and the agent that serves each (ARCHITECTURE.md, "The wire contract"). */
export const STAGE_IDS = ['requirements', 'architecture', 'implementation', 'execution', 'validation'] as const;
export type StageId = (typeof STAGE_IDS)[number];

export const AGENT_IDS = [
  'requirementsAgent',
  'cloudArchitectAgent',
  'implementationPlanningAgent',
  'executionAgent',
  'validationAgent',
] as const;
export type AgentId = (typeof AGENT_IDS)[number];

export const Stage = Type.Object({
  stage_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  agent_id: Type.String(),
  order: Type.Integer(),
  is_enabled: Type.Boolean(),
  is_active: Type.Boolean(),
  is_completed: Type.Boolean(),
});
export type Stage = Static<typeof Stage>;

export const ProjectState = Type.Object({
  projectId: Type.Integer(),
  current_stage_index: Type.Integer(),
  stages: Type.Array(Stage),
});
export type ProjectState = Static<typeof ProjectState>;

export const StageParams = Type.Object({
  projectId: IdParam,
  stageId: Type.String({ maxLength: 64 }),
});
export type StageParams = Static<typeof StageParams>;

/** PUT /api/project-states/{projectId}/stages/{stageId}: the fields a client may merge into a stage. */
export const StageUpdateBody = Type.Object(
  {
    is_completed: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    is_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type StageUpdateBody = Static<typeof StageUpdateBody>;

export const SetCurrentStageResponse = Type.Object({
  current_stage_index: Type.Integer(),
  stage_id: Type.String(),
});
export type SetCurrentStageResponse = Static<typeof SetCurrentStageResponse>;
