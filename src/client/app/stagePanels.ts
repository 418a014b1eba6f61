import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AgentId } from '../../shared/api/stages';
import type { StagePanelProps } from '../common/stages/types';

type StagePanel = LazyExoticComponent<ComponentType<StagePanelProps>>;

/**
 * The panel of each stage agent, each in its own chunk so that the workspace frame stays small and a
 * stage's code (chat, markdown, terminal) loads only when that stage is shown.
 */
export const STAGE_PANELS: Record<AgentId, StagePanel> = {
  requirementsAgent: lazy(() =>
    import(/* webpackChunkName: "stage-requirements" */ '../features/planning/RequirementsStage').then((m) => ({
      default: m.RequirementsStage,
    })),
  ),
  cloudArchitectAgent: lazy(() =>
    import(/* webpackChunkName: "stage-architecture" */ '../features/planning/ArchitectureStage').then((m) => ({
      default: m.ArchitectureStage,
    })),
  ),
  implementationPlanningAgent: lazy(() =>
    import(/* webpackChunkName: "stage-implementation" */ '../features/planning/ImplementationStage').then((m) => ({
      default: m.ImplementationStage,
    })),
  ),
  executionAgent: lazy(() =>
    import(/* webpackChunkName: "stage-execution" */ '../features/execution/ExecutionStage').then((m) => ({
      default: m.ExecutionStage,
    })),
  ),
  validationAgent: lazy(() =>
    import(/* webpackChunkName: "stage-validation" */ '../features/validation/ValidationStage').then((m) => ({
      default: m.ValidationStage,
    })),
  ),
};

/** True for the five agent ids of the contract (the keys above; `Record<AgentId, …>` keeps them complete). */
export function isAgentId(value: string): value is AgentId {
  return Object.hasOwn(STAGE_PANELS, value);
}
