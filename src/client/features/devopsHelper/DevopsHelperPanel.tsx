import { useCallback, useEffect, useState, type ReactElement, type ReactNode } from 'react';
import styled from 'styled-components';
import { DEVOPS_HELPER } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Chat } from '../../common/chat/Chat';
import { chatSaga } from '../../common/chat/chatSaga';
import { useChatRestored, useThreadRestore } from '../../common/chat/useThreadRestore';
import { useGetDevopsHelperThreadQuery } from './devopsHelperApi';
import type { ChatMessage } from '../../common/chat/chatSlice';
import { ApprovalCard } from './components/ApprovalCard';
import { WarningDialog } from './components/WarningDialog';
import { DEVOPS_HELPER_PATHS, devopsHelperSaga } from './devopsHelperSaga';
import { devopsHelperChatKey, messageSubmitted, panelClosed, panelOpened, selectApprovals } from './devopsHelperSlice';
import { acceptWarning, clearAcceptanceOnUnload, isWarningAccepted } from './warningAcceptance';

export interface DevopsHelperPanelProps {
  projectId: number;
  /** Leaving without accepting the notice (the page goes back to the project home). */
  onDecline: () => void;
  /** h1 on the full page (the chat is the page), h2 in the project home's panel. */
  headingLevel?: 'h1' | 'h2';
  /** A question prepared elsewhere (a failed validation check) in the input, for the person to send. */
  initialDraft?: string;
}

/**
 * The DevOps Helper chat (part 2 sections 2 and 4): the 'Important Notice' first (until accepted on this
 * page), then the chat with approval cards from the approval socket, which is open while the panel is.
 */
export function DevopsHelperPanel({ projectId, onDecline, headingLevel, initialDraft }: DevopsHelperPanelProps): ReactElement {
  useInjectSaga(chatSaga, devopsHelperSaga);
  const dispatch = useAppDispatch();
  const key = devopsHelperChatKey(projectId);
  const approvals = useAppSelector((state) => selectApprovals(state, key));
  const [accepted, setAccepted] = useState(isWarningAccepted);
  // A reload shows the stored conversation again (read once per page, fresh from the server).
  const restored = useChatRestored(key);
  useThreadRestore(key, useGetDevopsHelperThreadQuery(projectId, { skip: restored || !accepted, refetchOnMountOrArgChange: true }));

  useEffect(() => clearAcceptanceOnUnload(), []);
  useEffect(() => {
    if (!accepted) return undefined;
    dispatch(panelOpened({ projectId }));
    return () => {
      dispatch(panelClosed({ projectId }));
    };
  }, [accepted, dispatch, projectId]);

  const renderAfter = useCallback(
    (message: ChatMessage): ReactNode =>
      approvals.filter((a) => a.afterMessageId === message.id).map((item) => <ApprovalCard key={item.id} chatKey={key} item={item} />),
    [approvals, key],
  );

  if (!accepted) {
    return (
      <WarningDialog
        onAccept={() => {
          acceptWarning();
          setAccepted(true);
        }}
        onClose={onDecline}
      />
    );
  }

  const early = approvals.filter((a) => a.afterMessageId === 0);
  return (
    <Column>
      <Chat
        {...(initialDraft ? { initialDraft } : {})}
        chatKey={key}
        title={DEVOPS_HELPER.title}
        endpoint={{ path: DEVOPS_HELPER_PATHS.chat, killPath: DEVOPS_HELPER_PATHS.kill }}
        placeholder={DEVOPS_HELPER.chatPlaceholder}
        intro={DEVOPS_HELPER.intro}
        onSend={(message) => dispatch(messageSubmitted({ projectId, message }))}
        renderAfter={renderAfter}
        {...(headingLevel ? { headingLevel } : {})}
      />
      {early.length > 0 && (
        <EarlyList>
          {early.map((item) => (
            <ApprovalCard key={item.id} chatKey={key} item={item} />
          ))}
        </EarlyList>
      )}
    </Column>
  );
}

const Column = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
`;

const EarlyList = styled.ol`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
`;
