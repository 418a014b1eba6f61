import type { ReactElement } from 'react';
import { ARCHITECTURE_TEXT, PLANNING_TIMING, PLANNING_PROMPTS } from '../../../shared/constants';
import { blockingReason } from '../../../shared/planFindings';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Button } from '../../common/components/Button';
import { Chat } from '../../common/chat/Chat';
import { chatSaga } from '../../common/chat/chatSaga';
import { messageSubmitted, selectChatStreaming } from '../../common/chat/chatSlice';
import type { StagePanelProps } from '../../common/stages/types';
import { ConfirmButton } from './components/ConfirmButton';
import { PlanView } from './components/PlanView';
import { ServerInspection } from './components/ServerInspection';
import { StageColumns, StageView } from './components/StageLayout';
import { useGetArchitecturePlanQuery } from './planningApi';
import { PLANNING_CHATS } from './planningChats';
import { planningSaga } from './planningSaga';
import { useRestoredChat } from './useRestoredChat';

/**
 * The architecture stage (part 1 section 2): the 'Cloud Architecture Plan' with its confirm (polled
 * every 5 s while shown) and the 'Cloud Architecture Assistant' chat that writes and revises it.
 */
export function ArchitectureStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(chatSaga, planningSaga);
  const dispatch = useAppDispatch();
  const key = useRestoredChat(projectId, 'architect');
  const streaming = useAppSelector((state) => selectChatStreaming(state, key));
  const { data, isLoading, isError } = useGetArchitecturePlanQuery(projectId, {
    pollingInterval: PLANNING_TIMING.dataPollMs,
    skipPollingIfUnfocused: true,
  });
  const plan = isError ? undefined : data?.plan;
  const findings = isError ? undefined : data?.findings;
  // An error the verifier found blocks the confirm (the server refuses it too), saying why.
  const blocked = blockingReason(findings);
  const generate = (): void => {
    dispatch(messageSubmitted({ key, message: PLANNING_PROMPTS.generateArchitecturePlan, ...PLANNING_CHATS.architect }));
  };

  // The server verifies the saved plan again when an inspection finds something; an error it finds can be fixed by making the plan again.
  const remake = plan?.trim() && blocked && !streaming ? generate : undefined;

  return (
    <StageColumns>
      <StageView>
        <ServerInspection projectId={projectId} {...(remake ? { remake } : {})} />
        <PlanView
          title={ARCHITECTURE_TEXT.viewTitle}
          plan={plan}
          isLoading={isLoading}
          error={isError ? ARCHITECTURE_TEXT.loadError : null}
          findings={findings}
          confirm={
            <ConfirmButton
              projectId={projectId}
              stage="architecture"
              label="Confirm Architecture"
              enabled={Boolean(plan?.trim()) && !streaming && !blocked}
              hint={blocked ?? 'Available once the plan exists and no reply is running'}
            />
          }
          empty={
            <>
              {streaming ? 'The assistant is writing the plan; it appears here when it is saved.' : 'No architecture plan yet. '}
              {!streaming && (
                <Button $size="sm" onClick={generate}>
                  {PLANNING_PROMPTS.generateArchitecturePlan}
                </Button>
              )}
            </>
          }
        />
      </StageView>
      <Chat chatKey={key} title={ARCHITECTURE_TEXT.chatTitle} endpoint={PLANNING_CHATS.architect} />
    </StageColumns>
  );
}
