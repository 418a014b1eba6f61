import { useEffect, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { EXECUTION_TEXT } from '../../../shared/constants';
import { useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Button } from '../../common/components/Button';
import { Card } from '../../common/components/Card';
import { MutedText, PHONE_MAX_WIDTH } from '../../common/components/Layout';
import type { StagePanelProps } from '../../common/stages/types';
import { ExecutionChatPanel } from './components/ExecutionChatPanel';
import { ExecutionProgressPanel } from './components/ExecutionProgressPanel';
import { executionSaga } from './executionSaga';
import { chatSaga } from '../../common/chat/chatSaga';
import { selectOfferedDraft } from './executionSlice';
import { SandboxInitStatus } from '../../common/sandbox/SandboxInitStatus';
import { ToolPreflightNotice } from './ToolPreflightNotice';
import { DockSplitter, useDockHeight } from '../../common/components/DockSplitter';

/** Ours: the spec leaves the execution chat's title and placeholder to the caller. */
const CHAT_TITLE = 'Execution Agent';
const CHAT_PLACEHOLDER = 'Ask the execution agent about the run, or ask it to change a step...';
const OPEN_CHAT = 'Open the agent chat and terminal';
const RESIZE_CHAT = 'Resize the agent chat';
const CHAT_ID = 'execution-agent-chat';
/** Where the docked chat's height is remembered in this browser. */
const DOCK_HEIGHT_KEY = 'da.executionChat.dockHeight';

/** Whether a media query holds now, following changes. */
function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof window.matchMedia === 'function' && window.matchMedia(query).matches);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const list = window.matchMedia(query);
    const onChange = (): void => setMatches(list.matches);
    list.addEventListener('change', onChange);
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

/**
 * The execution stage (part 2 section 2): the execution progress panel with its step cards across the
 * whole width, so the step that waits is what the person sees. The chat panel (Chat and Terminal tabs)
 * opens only when asked (its button, or a card's 'Change with the agent'): beside the steps on a window
 * of 1600 px or more (its width adjustable), else docked at the bottom of the window (a terminal of 100+
 * columns at 1440, the steps keeping their width; its height set with a splitter, remembered), and then the current step is scrolled to the top,
 * above the dock, so the panel never hides the step that waits. The side card the spec gives this
 * stage follows the steps.
 */
export function ExecutionStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(chatSaga, executionSaga);
  const [chatOpen, setChatOpen] = useState(false);
  const offered = useAppSelector(selectOfferedDraft);
  // A card's 'Change with the agent' opens the chat (state adjusted while rendering, once per offer).
  const [seenOffer, setSeenOffer] = useState(offered?.id);
  if (offered && offered.id !== seenOffer) {
    setSeenOffer(offered.id);
    setChatOpen(true);
  }
  const workRef = useRef<HTMLDivElement>(null);
  const beside = useMediaQuery(SIDE_BY_SIDE);
  const dock = useDockHeight(DOCK_HEIGHT_KEY, (viewport) => Math.min(viewport / 2, 520));
  const docked = chatOpen && !beside;
  const dockHeight = docked ? dock.height : 0;
  useEffect(() => {
    if (!chatOpen) return;
    const current = workRef.current?.querySelector<HTMLElement>('[data-current="true"]');
    if (!current || typeof current.scrollIntoView !== 'function') return;
    // The dock covers the window's lower part (as high as the person made it): the current card goes to the
    // top unless its head, with Approve and Reject, is clear of the dock already.
    const { top } = current.getBoundingClientRect();
    const clear = dockHeight ? window.innerHeight - dockHeight - 160 : window.innerHeight / 3;
    if (top < 0 || top > clear) current.scrollIntoView({ block: 'start' });
  }, [chatOpen, dockHeight]);
  return (
    <Columns $chat={chatOpen}>
      <WorkArea ref={workRef}>
        {/* Shown only while (or after a failed) sandbox preparation for this project: nothing once it is done. */}
        <SandboxInitStatus projectId={projectId} />
        <ToolPreflightNotice projectId={projectId} />
        <ExecutionProgressPanel
          projectId={projectId}
          actions={
            chatOpen ? undefined : (
              <Button $size="sm" onClick={() => setChatOpen(true)}>
                {OPEN_CHAT}
              </Button>
            )
          }
        />
        <Card aria-label={EXECUTION_TEXT.comingSoon}>
          <h3>{EXECUTION_TEXT.comingSoon}</h3>
          <MutedText>{EXECUTION_TEXT.comingSoonDescription}</MutedText>
        </Card>
      </WorkArea>
      {chatOpen && (
        <ChatColumn id={CHAT_ID} style={docked ? { height: dock.height } : undefined}>
          {docked && <DockSplitter dock={dock} label={RESIZE_CHAT} controls={CHAT_ID} />}
          <ExecutionChatPanel projectId={projectId} title={CHAT_TITLE} placeholder={CHAT_PLACEHOLDER} onClose={() => setChatOpen(false)} />
        </ChatColumn>
      )}
    </Columns>
  );
}

/** Where the chat goes beside the steps rather than docked under them: the steps keep 700 px or more. */
const SIDE_BY_SIDE = '(min-width: 1600px)';

/** The steps, and the open chat: docked after them (sticking to the window's bottom), or beside them. */
const Columns = styled.div<{ $chat: boolean }>`
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: ${({ theme }) => theme.space(5)};
  @media ${SIDE_BY_SIDE} {
    grid-template-columns: ${({ $chat }) => ($chat ? 'minmax(0, 1fr) auto' : 'minmax(0, 1fr)')};
    align-items: start;
  }
`;

const WorkArea = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
  min-width: 0;
  h3 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(1)}; }
`;

/**
 * Docked: sticks to the bottom of the window while the steps above it scroll (and sits in its own place
 * once the end is reached, so every step can scroll above it), as high as the person drags or keys its
 * splitter (DockSplitter). Beside the steps on a wide window: sticks
 * to the top, the person drags its lower-left corner to make it wider or narrower (CSS resize).
 */
const ChatColumn = styled.div`
  display: flex;
  flex-direction: column;
  > :last-child { flex: 1; min-height: 0; }
  position: sticky;
  bottom: 0;
  z-index: 2;
  height: min(50vh, 520px);
  box-shadow: ${({ theme }) => theme.shadows.raised};
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    height: 45vh;
  }
  @media ${SIDE_BY_SIDE} {
    top: ${({ theme }) => theme.space(4)};
    bottom: auto;
    width: 560px;
    min-width: 360px;
    max-width: 50vw;
    height: calc(100vh - ${({ theme }) => theme.space(8)});
    box-shadow: none;
    resize: horizontal;
    overflow: hidden;
    direction: rtl;
    > * { direction: ltr; }
  }
`;
