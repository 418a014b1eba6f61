import { Fragment, useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactElement, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import styled, { css } from 'styled-components';
import { CHAT, HOME } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../components/Button';
import { TextArea } from '../components/Field';
import { messageSubmitted, selectChatThread, stopRequested, type ChatEndpoint, type ChatMessage } from './chatSlice';
import { LazyMarkdown } from './markdown/LazyMarkdown';
import { useComposerFocus } from '../hooks/useComposerFocus';

export interface ChatProps {
  /** `chatKey(projectId, agent)`: the conversation shown. */
  chatKey: string;
  title: string;
  endpoint: ChatEndpoint;
  placeholder?: string;
  /** Extra controls in the header (e.g. the repository analysis button). */
  actions?: ReactNode;
  /** The title's heading level: h2 in a page that has its own h1, h1 where the chat is the page. */
  headingLevel?: 'h1' | 'h2';
  /** Shown above the messages while the conversation is empty. */
  intro?: ReactNode;
  /** Sends the message instead of the common chat saga (a chat with its own turn, e.g. the DevOps Helper). */
  onSend?: (message: string) => void;
  /** Items shown after a message (the DevOps Helper's approval cards). */
  renderAfter?: (message: ChatMessage) => ReactNode;
  /** The input's first text (a question another screen prepared, e.g. about a failed check); sent only by the person. */
  initialDraft?: string;
  /** A text another control offers to finish (a step card's 'Change step N: '): each new `id` puts it in the input. */
  offeredDraft?: { id: string; text: string } | null;
  /**
   * Inside a panel that already names the conversation (the execution stage's Chat tab): no card or title
   * of its own, and the input and the list are named plainly 'Message' and 'Messages'.
   */
  bare?: boolean;
}

/**
 * The one chat of every agent (part 1 section 2, "Chat behaviour"): messages alternate user /
 * assistant, Enter sends and Shift+Enter breaks the line, a streaming reply disables the input and
 * Send and shows Stop; the Thread ID and the answering model are shown.
 */
export function Chat({
  chatKey,
  title,
  endpoint,
  placeholder,
  actions,
  intro,
  onSend,
  renderAfter,
  initialDraft,
  offeredDraft,
  bare = false,
  headingLevel = 'h2',
}: ChatProps): ReactElement {
  const dispatch = useAppDispatch();
  const thread = useAppSelector((state) => selectChatThread(state, chatKey));
  const [draft, setDraft] = useState(initialDraft ?? '');
  const headingId = useId();
  const inputId = useId();
  const listRef = useRef<HTMLOListElement>(null);
  const streaming = thread.status === 'streaming';
  const canSend = !streaming && draft.trim() !== '';
  const { ref: composerRef, sent: composerSent } = useComposerFocus<HTMLTextAreaElement>(streaming);
  // An offered text replaces the draft once per offer (state adjusted while rendering), then takes the focus.
  const [takenOffer, setTakenOffer] = useState<string | undefined>(undefined);
  if (offeredDraft && offeredDraft.id !== takenOffer) {
    setTakenOffer(offeredDraft.id);
    setDraft(offeredDraft.text);
  }
  useEffect(() => {
    if (offeredDraft) composerRef.current?.focus();
  }, [offeredDraft, composerRef]);

  const lastContent = thread.messages[thread.messages.length - 1]?.content;
  useEffect(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [thread.messages.length, lastContent]);

  const send = (): void => {
    if (!canSend) return;
    if (onSend) onSend(draft);
    else dispatch(messageSubmitted({ key: chatKey, message: draft, ...endpoint }));
    setDraft('');
    composerSent();
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    send();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    send();
  };

  return (
    <ChatCard aria-labelledby={bare ? undefined : headingId} $bare={bare}>
      <Header $bare={bare}>
        <div>
          {!bare && (
            <Title as={headingLevel} id={headingId}>
              {title}
            </Title>
          )}
          <Meta>
            {thread.model && (
              <span>
                Model: <strong data-testid="chat-model">{thread.model}</strong>
              </span>
            )}
            {thread.threadId && (
              <span>
                {CHAT.threadIdLabel}: <code>{thread.threadId}</code>
              </span>
            )}
          </Meta>
        </div>
        {actions && <HeaderActions>{actions}</HeaderActions>}
      </Header>

      <Messages ref={listRef} aria-label={bare ? 'Messages' : `${title} messages`} aria-live="polite" aria-busy={streaming} tabIndex={0}>
        {thread.messages.length === 0 && intro && <Intro>{intro}</Intro>}
        {thread.messages.map((message) => (
          <Fragment key={message.id}>
            <MessageItem message={message} />
            {renderAfter?.(message)}
          </Fragment>
        ))}
      </Messages>

      <Composer onSubmit={onSubmit}>
        <label htmlFor={inputId} className="visually-hidden">
          {bare ? 'Message' : `Message ${title}`}
        </label>
        <TextArea
          ref={composerRef}
          id={inputId}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          disabled={streaming}
          maxLength={CHAT.maxMessageLength}
          placeholder={placeholder ?? 'Type a message. Enter sends, Shift+Enter adds a line.'}
          rows={3}
        />
        <ComposerActions>
          {streaming && (
            <Button $variant="danger" onClick={() => dispatch(stopRequested({ key: chatKey }))} disabled={thread.stopRequested}>
              {CHAT.stop}
            </Button>
          )}
          <Button type="submit" $variant="primary" disabled={!canSend}>
            {CHAT.send}
          </Button>
        </ComposerActions>
      </Composer>
    </ChatCard>
  );
}

function MessageItem({ message }: { message: ChatMessage }): ReactElement {
  const fromUser = message.role === 'user';
  return (
    <Bubble $role={message.role} $notice={Boolean(message.kind)} data-role={message.role}>
      <Speaker>{fromUser ? 'You' : 'Assistant'}</Speaker>
      {fromUser ? (
        <PlainText>{message.content}</PlainText>
      ) : message.pending && message.content === '' ? (
        <Thinking>{CHAT.thinking}</Thinking>
      ) : message.kind ? (
        <>
          <PlainText role={message.kind === 'stopped' ? undefined : 'alert'}>{message.content}</PlainText>
          {message.kind === 'outOfCredits' && (
            <CreditsLink to="/app">{HOME.creditsButton}</CreditsLink>
          )}
        </>
      ) : (
        <LazyMarkdown diagrams={!message.pending}>{message.content}</LazyMarkdown>
      )}
    </Bubble>
  );
}

const ChatCard = styled.section<{ $bare: boolean }>`
  display: flex;
  flex-direction: column;
  min-height: ${({ $bare }) => ($bare ? '0' : '480px')};
  max-height: calc(100vh - 96px);
  ${({ $bare, theme }) =>
    $bare
      ? css`
          flex: 1;
        `
      : css`
          border-radius: ${theme.radii.lg};
          border: 1px solid ${theme.colors.border};
          background: ${theme.colors.surface};
        `}
`;

const Header = styled.header<{ $bare: boolean }>`
  display: flex;
  align-items: flex-start;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(3)};
  padding: ${({ theme, $bare }) => ($bare ? `0 0 ${theme.space(2)}` : `${theme.space(4)} ${theme.space(5)}`)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; }
`;

const Meta = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(3)};
  margin-top: ${({ theme }) => theme.space(1)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  code { font-family: ${({ theme }) => theme.fonts.mono}; overflow-wrap: anywhere; }
  strong { color: ${({ theme }) => theme.colors.text}; font-weight: 600; }
`;

const HeaderActions = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
  flex: none;
`;

const Messages = styled.ol`
  flex: 1;
  min-height: 0;
  overflow-y: auto;
  list-style: none;
  margin: 0;
  padding: ${({ theme }) => theme.space(4)} ${({ theme }) => theme.space(5)};
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
`;

const Title = styled.h2`
  font-size: ${({ theme }) => theme.fontSizes.lg};
`;

const Intro = styled.li`
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Bubble = styled.li<{ $role: ChatMessage['role']; $notice: boolean }>`
  max-width: 88%;
  padding: ${({ theme }) => `${theme.space(2.5)} ${theme.space(3.5)}`};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  ${({ $role, theme }) =>
    $role === 'user'
      ? css`
          align-self: flex-end;
          background: ${theme.colors.surfaceHover};
        `
      : css`
          align-self: flex-start;
          background: ${theme.colors.surfaceRaised};
        `}
  ${({ $notice, theme }) =>
    $notice &&
    css`
      border-color: ${theme.colors.warning};
    `}
`;

const Speaker = styled.div`
  margin-bottom: ${({ theme }) => theme.space(1)};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-weight: 600;
`;

const PlainText = styled.div`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

const Thinking = styled.div`
  color: ${({ theme }) => theme.colors.textMuted};
  font-style: italic;
`;

const CreditsLink = styled(Link)`
  display: inline-block;
  margin-top: ${({ theme }) => theme.space(2)};
  color: ${({ theme }) => theme.colors.focus};
  font-weight: 600;
`;

const Composer = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
  padding: ${({ theme }) => `${theme.space(3)} ${theme.space(5)} ${theme.space(4)}`};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  textarea { min-height: 64px; }
`;

const ComposerActions = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${({ theme }) => theme.space(2)};
`;
