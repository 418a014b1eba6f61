import { all, call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type { RequirementsResponse } from '../../../shared/api/planning';
import { PLANNING_ERRORS, PLANNING_PROMPTS, STAGE_INDEX } from '../../../shared/constants';
import { errorMessage } from '../../api/apiSlice';
import { runEndpoint } from '../../api/runEndpoint';
import { runAgentTurn, type TurnOutcome } from '../../common/chat/chatSaga';
import {
  chatKey,
  messageSubmitted,
  selectChatStreaming,
  selectChatThread,
  turnEnded,
  turnFailed,
  turnStopped,
  type ChatThread,
} from '../../common/chat/chatSlice';
import { completeStageAndMove } from '../../common/stages/stageSagas';
import { planningApi, type PlanningTag } from './planningApi';
import { ANALYZER_ENDPOINT, PLANNING_CHATS, type PlanningChat } from './planningChats';
import { canConfirmRequirements } from './planningRules';
import {
  analysisRequested,
  architectureConfirmRequested,
  confirmFailed,
  confirmSucceeded,
  requirementsConfirmRequested,
  type ConfirmStage,
} from './planningSlice';

/** Starts a plan generation in the next stage's chat; the chat shows it streaming there. */
function* triggerGeneration(projectId: number, chat: PlanningChat, message: string): Generator {
  yield put(messageSubmitted({ key: chatKey(projectId, chat), message, ...PLANNING_CHATS[chat] }));
}

function* confirmFlow(projectId: number, stage: ConfirmStage, steps: () => Generator): Generator {
  try {
    yield call(steps);
    yield put(confirmSucceeded({ projectId, stage }));
  } catch (error) {
    yield put(confirmFailed({ projectId, stage, message: errorMessage(error) }));
  }
}

/** Requirements confirm: 'Generate architecture plan', complete 'requirements', move to 'architecture'. */
export function* requirementsConfirmWorker(action: ReturnType<typeof requirementsConfirmRequested>): Generator {
  const { projectId } = action.payload;
  yield call(confirmFlow, projectId, 'requirements', function* steps() {
    const requirements = (yield call(
      runEndpoint<RequirementsResponse>,
      planningApi.endpoints.getRequirements.initiate(projectId),
    )) as RequirementsResponse;
    const generating = (yield select(selectChatStreaming, chatKey(projectId, 'requirements'))) as boolean;
    if (!canConfirmRequirements(requirements, generating)) throw new Error('The requirements are not ready to confirm yet.');
    yield call(triggerGeneration, projectId, 'architect', PLANNING_PROMPTS.generateArchitecturePlan);
    yield call(completeStageAndMove, projectId, 'requirements', STAGE_INDEX.architecture);
  });
}

/** Architecture confirm: 'Generate implementation plan', complete 'architecture', move to index 2. */
export function* architectureConfirmWorker(action: ReturnType<typeof architectureConfirmRequested>): Generator {
  const { projectId } = action.payload;
  yield call(confirmFlow, projectId, 'architecture', function* steps() {
    yield call(triggerGeneration, projectId, 'implementation', PLANNING_PROMPTS.generateImplementationPlan);
    yield call(completeStageAndMove, projectId, 'architecture', STAGE_INDEX.implementation);
  });
}

/**
 * Repository analysis (part 1 section 4): the analysis streams into the requirements chat; when it
 * completes, requirements gathering starts with an empty message. Each step's failure has its own
 * text (part 1 section 8).
 */
export function* analysisWorker(action: ReturnType<typeof analysisRequested>): Generator {
  const { projectId, ...body } = action.payload;
  const key = chatKey(projectId, 'requirements');
  if ((yield select(selectChatStreaming, key)) as boolean) return;

  const analysis = (yield call(runAgentTurn, {
    key,
    request: { path: ANALYZER_ENDPOINT.path, body },
    userMessage: `Analyse ${body.repository_data.full_name} (branch ${body.branch})`,
    killPath: ANALYZER_ENDPOINT.killPath,
    ownThread: false,
    failureText: (failure) => PLANNING_ERRORS.analysis(failure.message),
  })) as TurnOutcome;
  yield put(planningApi.util.invalidateTags([{ type: 'Analysis', id: projectId }]));
  if (analysis.status !== 'ended') return;

  const thread = (yield select(selectChatThread, key)) as ChatThread;
  const message = PLANNING_PROMPTS.afterAnalysis;
  yield call(runAgentTurn, {
    key,
    request: { path: PLANNING_CHATS.requirements.path, body: thread.threadId ? { message, thread_id: thread.threadId } : { message } },
    userMessage: null,
    killPath: PLANNING_CHATS.requirements.killPath,
    failureText: (failure) =>
      failure.phase === 'start' ? PLANNING_ERRORS.gatheringStart(failure.message) : PLANNING_ERRORS.gatheringAfterAnalysis,
  });
}

/** What each planning chat's turn may have changed on the server. */
const TAGS_AFTER_TURN: Record<PlanningChat, PlanningTag[]> = {
  requirements: ['Requirements', 'UserSecrets', 'Stack'],
  architect: ['ArchitecturePlan'],
  implementation: ['ImplementationPlan'],
};

/** After any planning turn, the data it feeds is refetched at once instead of at the next 5 s poll. */
export function* refreshAfterTurn(action: ReturnType<typeof turnEnded | typeof turnFailed | typeof turnStopped>): Generator {
  const [id, chat] = action.payload.key.split(':');
  if (!(chat in TAGS_AFTER_TURN)) return;
  const projectId = Number(id);
  yield put(planningApi.util.invalidateTags(TAGS_AFTER_TURN[chat as PlanningChat].map((type) => ({ type, id: projectId }))));
}

export function* planningSaga(): Generator {
  yield all([
    takeLeading(requirementsConfirmRequested.type, requirementsConfirmWorker),
    takeLeading(architectureConfirmRequested.type, architectureConfirmWorker),
    // implementation/confirmRequested belongs to the sandbox feature (sandboxInitSaga): status check,
    // initialisation loop, execution trigger, then the move to index 3.
    takeLeading(analysisRequested.type, analysisWorker),
    takeEvery([turnEnded.type, turnFailed.type, turnStopped.type], refreshAfterTurn),
  ]);
}
