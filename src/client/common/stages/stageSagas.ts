import { call } from 'redux-saga/effects';
import type { ProjectState, Stage } from '../../../shared/api/stages';
import { runEndpoint } from '../../api/runEndpoint';
import { stagesApi } from './stagesApi';

/** The enabled stages in workflow order, as the workspace frame numbers them. */
function enabledInOrder(stages: readonly Stage[]): Stage[] {
  return stages.filter((stage) => stage.is_enabled).sort((a, b) => a.order - b.order);
}

/**
 * Completes a stage and moves the project to the stage at `index` (part 1 section 4). Completing
 * already moves the server to the next stage; the current stage is then set only when it differs,
 * as the stage rule says.
 */
export function* completeStageAndMove(projectId: number, stageId: string, index: number): Generator {
  yield call(runEndpoint, stagesApi.endpoints.updateStage.initiate({ projectId, stageId, changes: { is_completed: true } }));
  const state = (yield call(
    runEndpoint<ProjectState>,
    stagesApi.endpoints.getProjectState.initiate(projectId, { forceRefetch: true }),
  )) as ProjectState;
  const target = enabledInOrder(state.stages)[index];
  if (target && target.order !== state.current_stage_index) {
    yield call(runEndpoint, stagesApi.endpoints.setCurrentStage.initiate({ projectId, stageId: target.stage_id }));
  }
}
