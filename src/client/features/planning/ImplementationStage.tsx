import type { ReactElement } from 'react';
import { useParams } from 'react-router-dom';
import styled from 'styled-components';
import { IMPLEMENTATION_TEXT, PLANNING_PROMPTS, PLANNING_TIMING, WORKSPACE } from '../../../shared/constants';
import { blockingReason } from '../../../shared/planFindings';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Button } from '../../common/components/Button';
import { ErrorText } from '../../common/components/Field';
import { Chat } from '../../common/chat/Chat';
import { chatSaga } from '../../common/chat/chatSaga';
import { messageSubmitted, selectChatStreaming } from '../../common/chat/chatSlice';
import { SandboxInitStatus } from '../../common/sandbox/SandboxInitStatus';
import { sandboxInitSaga } from './sandboxInitSaga';
import type { StagePanelProps } from '../../common/stages/types';
import { ConfirmButton } from './components/ConfirmButton';
import { PlanView } from './components/PlanView';
import { Panel, StageColumns } from './components/StageLayout';
import { useGetImplementationPlanQuery } from './planningApi';
import { PLANNING_CHATS } from './planningChats';
import { planningSaga } from './planningSaga';
import { useRestoredChat } from './useRestoredChat';

/** Title of the implementation planner's chat (the documents call it "a planner chat" without a name). */
export const IMPLEMENTATION_CHAT_TITLE = 'Implementation Planner';

const NUMERIC_ID = /^\d+$/;

/**
 * The implementation stage (part 1 section 2): the 'Implementation Plan' with its confirm (and, under it,
 * the sandbox initialisation the confirm runs: progress, failure, the credentials case) and the
 * planner chat. The view needs a numeric project id from the URL, else it says 'Invalid project ID'.
 */
export function ImplementationStage(props: StagePanelProps): ReactElement {
  // Its confirm runs the sandbox initialisation (sandboxInitSaga) before the move to execution.
  useInjectSaga(chatSaga, planningSaga, sandboxInitSaga);
  const { projectId: fromUrl = String(props.projectId) } = useParams();
  if (!NUMERIC_ID.test(fromUrl)) {
    return (
      <Panel aria-label={IMPLEMENTATION_TEXT.viewTitle}>
        <ErrorText>{WORKSPACE.invalidProjectIdFull(fromUrl)}</ErrorText>
      </Panel>
    );
  }
  return <ImplementationPlanStage projectId={Number(fromUrl)} />;
}

function ImplementationPlanStage({ projectId }: { projectId: number }): ReactElement {
  const dispatch = useAppDispatch();
  const key = useRestoredChat(projectId, 'implementation');
  const streaming = useAppSelector((state) => selectChatStreaming(state, key));
  const { data, isLoading, isError } = useGetImplementationPlanQuery(projectId, {
    pollingInterval: PLANNING_TIMING.dataPollMs,
    skipPollingIfUnfocused: true,
  });
  const plan = isError ? undefined : data?.plan;
  // Made before the architecture last changed: it has to be generated again before it can be confirmed.
  const outdated = !isError && Boolean(data?.outdated) && Boolean(plan?.trim());
  const findings = isError ? undefined : data?.findings;
  // An error the verifier found blocks the confirm (the server refuses it too), saying why.
  const blocked = blockingReason(findings);
  const generate = (): void => {
    dispatch(messageSubmitted({ key, message: PLANNING_PROMPTS.generateImplementationPlan, ...PLANNING_CHATS.implementation }));
  };

  return (
    <StageColumns>
      <PlanView
        title={IMPLEMENTATION_TEXT.viewTitle}
        plan={plan}
        isLoading={isLoading}
        error={isError ? IMPLEMENTATION_TEXT.loadError : null}
        findings={findings}
        confirm={
          <div>
            {outdated && (
              <Outdated role="status">
                <p>{IMPLEMENTATION_TEXT.outdated}</p>
                <Button $size="sm" $variant="primary" onClick={generate} disabled={streaming}>
                  {IMPLEMENTATION_TEXT.regenerate}
                </Button>
              </Outdated>
            )}
            <ConfirmButton
              projectId={projectId}
              stage="implementation"
              label="Confirm Implementation Plan"
              enabled={Boolean(plan?.trim()) && !streaming && !outdated && !blocked}
              hint={outdated ? IMPLEMENTATION_TEXT.outdatedHint : (blocked ?? 'Available once the plan exists and no reply is running')}
              showError={false}
            />
            {/* The confirm prepares the sandbox before the stage moves on: its progress and failure (once) show here. */}
            <SandboxInitStatus projectId={projectId} />
          </div>
        }
        empty={
          <>
            {streaming ? 'The planner is writing the plan; it appears here when it is saved.' : 'No implementation plan yet. '}
            {!streaming && (
              <Button $size="sm" onClick={generate}>
                {PLANNING_PROMPTS.generateImplementationPlan}
              </Button>
            )}
          </>
        }
      />
      <Chat chatKey={key} title={IMPLEMENTATION_CHAT_TITLE} endpoint={PLANNING_CHATS.implementation} />
    </StageColumns>
  );
}

const Outdated = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  margin-bottom: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  border-radius: ${({ theme }) => theme.radii.md};
  p { margin: 0; flex: 1 1 16rem; }
`;
