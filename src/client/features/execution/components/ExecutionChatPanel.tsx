import { lazy, Suspense, useId, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { TERMINAL } from '../../../../shared/constants';
import { useAppSelector } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { Card } from '../../../common/components/Card';
import { tabKeyTarget } from '../../../common/tabKeys';
import { Spinner } from '../../../common/components/Spinner';
import { useGetExecutionThreadQuery } from '../executionApi';
import { selectOfferedDraft } from '../executionSlice';
import { Chat } from '../../../common/chat/Chat';
import { chatKey, type ChatEndpoint } from '../../../common/chat/chatSlice';
import { useChatRestored, useThreadRestore } from '../../../common/chat/useThreadRestore';


const TerminalView = lazy(() =>
  import(/* webpackChunkName: "terminal" */ '../../../common/terminal/TerminalView').then((m) => ({ default: m.TerminalView })),
);

type Tab = (typeof TERMINAL.tabs)[number];

export interface ExecutionChatPanelProps {
  projectId: number;
  title: string;
  placeholder: string;
  /** Closes the panel (the execution stage opens it only when the person asks); no close button without it. */
  onClose?: () => void;
}

/** Ours: the panel's close control. */
const CLOSE = 'Close chat';

/**
 * The execution stage's chat panel (part 2 section 2): exactly two tabs, Chat and Terminal. The
 * terminal (and xterm) loads when its tab first opens and then stays mounted, so that the shell and the
 * agent's typed commands survive switching back to Chat. The tabs follow the ARIA tabs pattern
 * (arrow keys, Home and End move and select; only the selected tab is in the Tab order).
 */
export function ExecutionChatPanel({ projectId, title, placeholder, onClose }: ExecutionChatPanelProps): ReactElement {
  const [tab, setTab] = useState<Tab>(TERMINAL.tabs[0]);
  const [terminalOpened, setTerminalOpened] = useState(false);
  const baseId = useId();
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  const offered = useAppSelector(selectOfferedDraft);
  // A step card offered a message to finish ('Change step N: '): show the chat (state adjusted while rendering).
  // Undefined at first: the panel opens for an offer, which it then shows.
  const [shownOffer, setShownOffer] = useState<string | undefined>(undefined);
  if (offered && offered.id !== shownOffer) {
    setShownOffer(offered.id);
    setTab('Chat');
  }

  const select = (next: Tab): void => {
    setTab(next);
    if (next === 'Terminal') setTerminalOpened(true);
  };
  const onTabKeyDown = (event: KeyboardEvent<HTMLButtonElement>): void => {
    const next = tabKeyTarget(event.key, TERMINAL.tabs, tab);
    if (next === null) return;
    event.preventDefault();
    select(next);
    tabRefs.current[next]?.focus();
  };

  return (
    <Panel aria-label={title}>
      <PanelHeader>
        <h2>{title}</h2>
        {onClose && (
          <Button $size="sm" $variant="ghost" onClick={onClose}>
            {CLOSE}
          </Button>
        )}
      </PanelHeader>
      <TabList role="tablist" aria-label={title}>
        {TERMINAL.tabs.map((name) => (
          <TabButton
            key={name}
            ref={(element) => {
              tabRefs.current[name] = element;
            }}
            role="tab"
            id={`${baseId}-${name}-tab`}
            aria-selected={tab === name}
            tabIndex={tab === name ? 0 : -1}
            onKeyDown={onTabKeyDown}
            aria-controls={`${baseId}-${name}-panel`}
            $active={tab === name}
            onClick={() => select(name)}
          >
            {name}
          </TabButton>
        ))}
      </TabList>
      <TabPanel role="tabpanel" id={`${baseId}-Chat-panel`} aria-labelledby={`${baseId}-Chat-tab`} hidden={tab !== 'Chat'}>
        <ChatView projectId={projectId} placeholder={placeholder} title={title} />
      </TabPanel>
      <TabPanel role="tabpanel" id={`${baseId}-Terminal-panel`} aria-labelledby={`${baseId}-Terminal-tab`} hidden={tab !== 'Terminal'}>
        {terminalOpened && (
          <Suspense fallback={<Spinner label="Loading terminal..." />}>
            <TerminalView projectId={projectId} />
          </Suspense>
        )}
      </TabPanel>
    </Panel>
  );
}

/** The execution agent's conversation in the one chat: GET with the message in the query; Stop ends the stream. */
function ChatView({ projectId, placeholder, title }: { projectId: number; placeholder: string; title: string }): ReactElement {
  const key = chatKey(projectId, 'execution');
  const restored = useChatRestored(key);
  // A reload shows the stored conversation again: read once per page, fresh from the server each time.
  useThreadRestore(key, useGetExecutionThreadQuery(projectId, { skip: restored, refetchOnMountOrArgChange: true }));
  const offered = useAppSelector(selectOfferedDraft);
  return <Chat bare chatKey={key} title={title} endpoint={EXECUTION_AGENT} placeholder={placeholder} offeredDraft={offered ?? null} />;
}

const EXECUTION_AGENT: ChatEndpoint = { path: '/execution/agent', method: 'GET' };

/** Fills the height its place gives it (the stage's side column); the messages scroll inside. */
const Panel = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  height: 100%;
  min-height: 0;
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; }
`;

const PanelHeader = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(2)};
`;

const TabList = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(1)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

const TabButton = styled.button<{ $active: boolean }>`
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(4)}`};
  border: none;
  border-bottom: 2px solid ${({ theme, $active }) => ($active ? theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${({ theme, $active }) => ($active ? theme.colors.text : theme.colors.textMuted)};
  font-weight: 600;
  cursor: pointer;
`;

const TabPanel = styled.div`
  display: flex;
  flex: 1;
  flex-direction: column;
  min-height: 0;
  &[hidden] { display: none; }
`;
