import { lazy, Suspense, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { CHAT, TERMINAL } from '../../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { Card } from '../../../common/components/Card';
import { tabKeyTarget } from '../../../common/tabKeys';
import { TextArea } from '../../../common/components/Field';
import { Spinner } from '../../../common/components/Spinner';
import { useComposerFocus } from '../../../common/hooks/useComposerFocus';
import { useGetExecutionThreadQuery } from '../executionApi';
import { chatHistoryLoaded, chatMessageSent, chatStopRequested, selectChat, selectOfferedDraft, type ChatMessage } from '../executionSlice';

const TerminalView = lazy(() =>
  import(/* webpackChunkName: "terminal" */ '../../terminal/TerminalView').then((m) => ({ default: m.TerminalView })),
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
        <ChatView projectId={projectId} placeholder={placeholder} />
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

const NO_MESSAGES: ChatMessage[] = [];

function ChatView({ projectId, placeholder }: { projectId: number; placeholder: string }): ReactElement {
  const dispatch = useAppDispatch();
  const chat = useAppSelector(selectChat);
  // Another project's chat is not this one's (the stage shows one project at a time).
  const own = chat.projectId === projectId;
  const messages = own ? chat.messages : NO_MESSAGES;
  const status = own ? chat.status : 'idle';
  const threadId = own ? chat.threadId : null;
  const restored = own && chat.restored;
  // A reload shows the stored conversation again: read once per page, fresh from the server each time.
  const history = useGetExecutionThreadQuery(projectId, { skip: restored, refetchOnMountOrArgChange: true });
  useEffect(() => {
    if (restored || !history.data || history.isFetching) return;
    dispatch(chatHistoryLoaded({ projectId, threadId: history.data.thread_id, messages: history.data.messages }));
  }, [restored, history.data, history.isFetching, projectId, dispatch]);
  const [draft, setDraft] = useState('');
  const listRef = useRef<HTMLOListElement>(null);
  const busy = status !== 'idle';
  const { ref: composerRef, sent: composerSent } = useComposerFocus<HTMLTextAreaElement>(busy);
  const offered = useAppSelector(selectOfferedDraft);
  const [takenOffer, setTakenOffer] = useState<string | undefined>(undefined);
  if (offered && offered.id !== takenOffer) {
    setTakenOffer(offered.id);
    setDraft(offered.text);
  }
  useEffect(() => {
    if (offered) composerRef.current?.focus();
  }, [offered, composerRef]);

  useEffect(() => {
    const list = listRef.current;
    if (list && typeof list.scrollTo === 'function') list.scrollTo({ top: list.scrollHeight });
  }, [messages]);

  const send = (): void => {
    if (busy || !draft.trim()) return;
    dispatch(chatMessageSent({ projectId, message: draft }));
    setDraft('');
    composerSent();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    // Enter sends; Shift+Enter adds a line (part 1 section 2).
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  return (
    <ChatBody>
      <Messages ref={listRef} aria-label="Messages" aria-live="polite" tabIndex={0}>
        {messages.map((message, index) => {
          const thinking = message.role === 'assistant' && !message.content && status === 'sending' && index === messages.length - 1;
          return (
            <Bubble key={index} $role={message.role}>
              {thinking ? CHAT.thinking : message.content}
            </Bubble>
          );
        })}
      </Messages>
      {threadId && (
        <ThreadId>
          {CHAT.threadIdLabel}: <code>{threadId}</code>
        </ThreadId>
      )}
      <Composer
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <TextArea
          ref={composerRef}
          aria-label="Message"
          placeholder={placeholder}
          value={draft}
          disabled={busy}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {busy ? (
          <Button $variant="danger" onClick={() => dispatch(chatStopRequested())}>
            {CHAT.stop}
          </Button>
        ) : (
          <Button type="submit" $variant="primary" disabled={!draft.trim()}>
            {CHAT.send}
          </Button>
        )}
      </Composer>
    </ChatBody>
  );
}

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

const ChatBody = styled.div`
  display: flex;
  flex: 1;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  min-height: 0;
`;

const Messages = styled.ol`
  flex: 1;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
  max-height: 520px;
  min-height: 0;
  margin: 0;
  padding: 0;
  overflow-y: auto;
  list-style: none;
`;

const Bubble = styled.li<{ $role: string }>`
  align-self: ${({ $role }) => ($role === 'user' ? 'flex-end' : 'flex-start')};
  max-width: 85%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.lg};
  background: ${({ theme, $role }) => ($role === 'user' ? theme.colors.primaryFill : theme.colors.surfaceRaised)};
  color: ${({ theme, $role }) => ($role === 'user' ? theme.colors.primaryText : theme.colors.text)};
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

const ThreadId = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Composer = styled.form`
  display: flex;
  align-items: flex-end;
  gap: ${({ theme }) => theme.space(2)};
  textarea { min-height: 48px; }
`;
