import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { Chat } from '../../../src/client/common/chat/Chat';
import { chatKey } from '../../../src/client/common/chat/chatSlice';
import { safeUrl } from '../../../src/client/common/chat/markdown/Markdown';
import { CHAT, HOME, INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import type { StreamEvent } from '../../../src/shared/events';
import { planningDb, replyEvents, sseResponse, sseText, textStream } from '../utils/planningServer';
import { renderWithProviders } from '../utils/renderWithProviders';

// The machine is shared: lazy chunks and streams can take longer than the 1 s default under load.

const ENDPOINT = { path: '/planning/requirements-gatherer', killPath: '/planning/requirements-gatherer/kill' };

function renderChat() {
  return renderWithProviders(<Chat chatKey={chatKey(7, 'requirements')} title="Requirements Gatherer" endpoint={ENDPOINT} />, {
    route: '/app/7',
    path: '/app/:projectId',
  });
}

const input = (): HTMLTextAreaElement => screen.getByRole('textbox', { name: 'Message Requirements Gatherer' });
const messages = (): HTMLElement => screen.getByRole('list', { name: 'Requirements Gatherer messages' });

/** A stream that says `content` and then stays open until aborted. */
function openStream(content = ''): void {
  const events: StreamEvent[] = content ? [{ event: 'on_chat_model_stream', thread_id: 't-1', model: 'offline-planner', chunk: { content } }] : [];
  planningDb.stream = () => sseResponse(textStream([sseText(events)], { hold: true }));
}

describe('Chat', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('sends on Enter and streams the reply, showing the Thread ID and the answering model', async () => {
    planningDb.stream = () => sseResponse(sseText(replyEvents('Hello **there**', 'thread-42', 'offline-planner')));
    const { user } = renderChat();
    await user.type(input(), 'I need a VPS{Enter}');

    expect(await within(messages()).findByText('there')).toBeInTheDocument();
    expect(within(messages()).getByText('I need a VPS')).toBeInTheDocument();
    expect(screen.getByText('thread-42')).toBeInTheDocument();
    expect(screen.getByText(`${CHAT.threadIdLabel}:`, { exact: false })).toBeInTheDocument();
    expect(screen.getByTestId('chat-model')).toHaveTextContent('offline-planner');
    expect(planningDb.streamCalls).toEqual([
      expect.objectContaining({ agent: 'requirements', body: { message: 'I need a VPS' }, headers: { installationId: '42', projectId: '7' } }),
    ]);
    expect(input()).toHaveValue('');
    const roles = within(messages()).getAllByRole('listitem').map((item) => item.dataset.role);
    expect(roles).toEqual(['user', 'assistant']);
  });

  it('gives the focus back to the message box when the reply has finished', async () => {
    planningDb.stream = () => sseResponse(sseText(replyEvents('Done', 'thread-43', 'offline-planner')));
    const { user } = renderChat();
    await user.type(input(), 'Hello{Enter}');
    expect(await within(messages()).findByText('Done')).toBeInTheDocument();
    await waitFor(() => expect(input()).toBeEnabled());
    expect(input()).toHaveFocus();
  });

  it('continues the thread on the next message', async () => {
    planningDb.stream = () => sseResponse(sseText(replyEvents('First', 'thread-42')));
    const { user } = renderChat();
    await user.type(input(), 'one{Enter}');
    await within(messages()).findByText('First');
    await user.type(input(), 'two{Enter}');
    await waitFor(() => expect(planningDb.streamCalls).toHaveLength(2));
    expect(planningDb.streamCalls[1].body).toEqual({ message: 'two', thread_id: 'thread-42' });
  });

  it('adds a line on Shift+Enter without sending', async () => {
    const { user } = renderChat();
    await user.type(input(), 'line one{Shift>}{Enter}{/Shift}line two');
    expect(input()).toHaveValue('line one\nline two');
    expect(planningDb.streamCalls).toHaveLength(0);
  });

  it('does not send an empty or whitespace-only message', async () => {
    const { user } = renderChat();
    expect(screen.getByRole('button', { name: CHAT.send })).toBeDisabled();
    await user.type(input(), '   {Enter}');
    await user.click(screen.getByRole('button', { name: CHAT.send }));
    expect(planningDb.streamCalls).toHaveLength(0);
    expect(within(messages()).queryAllByRole('listitem')).toHaveLength(0);
  });

  it("shows 'Thinking...' until content arrives, with the input and Send disabled and Stop shown", async () => {
    openStream();
    const { user } = renderChat();
    await user.type(input(), 'Plan it{Enter}');

    expect(await within(messages()).findByText(CHAT.thinking)).toBeInTheDocument();
    expect(input()).toBeDisabled();
    expect(screen.getByRole('button', { name: CHAT.send })).toBeDisabled();
    expect(screen.getByRole('button', { name: CHAT.stop })).toBeEnabled();
  });

  it("Stop calls the kill endpoint and appends 'Generation stopped by user.' without an error text", async () => {
    openStream('Half an ans');
    const { user } = renderChat();
    await user.type(input(), 'Plan it{Enter}');
    await within(messages()).findByText('Half an ans');

    await user.click(screen.getByRole('button', { name: CHAT.stop }));
    expect(await within(messages()).findByText(CHAT.generationStopped)).toBeInTheDocument();
    expect(planningDb.kills).toBe(1);
    expect(screen.queryByText(CHAT.errorReply)).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: CHAT.stop })).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
  });

  it("appends 'Sorry, I encountered an error. Please try again.' when the stream fails", async () => {
    planningDb.stream = () => HttpResponse.json({ detail: 'Model provider unreachable' }, { status: 502 });
    const { user } = renderChat();
    await user.type(input(), 'Hello{Enter}');
    expect(await within(messages()).findByText(CHAT.errorReply)).toBeInTheDocument();
    expect(input()).toBeEnabled();
  });

  it("shows a 402's detail with a way to add credits", async () => {
    planningDb.stream = () => HttpResponse.json({ detail: 'You are out of credits.' }, { status: 402 });
    const { user } = renderChat();
    await user.type(input(), 'Hello{Enter}');
    expect(await within(messages()).findByText('You are out of credits.')).toBeInTheDocument();
    expect(within(messages()).getByRole('link', { name: HOME.creditsButton })).toHaveAttribute('href', '/app');
  });

  it('renders replies as markdown, keeping only safe links', async () => {
    planningDb.stream = () =>
      sseResponse(sseText(replyEvents('[docs](https://example.com/docs) [bad](javascript:alert(1)) [rel](./notes)')));
    const { user } = renderChat();
    await user.type(input(), 'links{Enter}');
    const docs = await within(messages()).findByRole('link', { name: 'docs' });
    expect(docs).toHaveAttribute('href', 'https://example.com/docs');
    expect(docs).toHaveAttribute('rel', 'noopener noreferrer');
    expect(within(messages()).getByText('bad').closest('a')?.getAttribute('href') ?? '').toBe('');
    expect(within(messages()).getByRole('link', { name: 'rel' })).toHaveAttribute('href', './notes');
  });
});

describe('markdown link rule (part 2 section 5)', () => {
  it.each(['http://a.example', 'https://a.example', 'irc://irc.example/x', 'ircs://irc.example/x', 'mailto:a@b.example', 'xmpp:a@b.example', '/relative', 'docs/x.md', '#anchor'])(
    'keeps %s',
    (url) => expect(safeUrl(url)).toBe(url),
  );
  it.each(['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'ftp://x.example'])(
    'drops %s',
    (url) => expect(safeUrl(url)).toBe(''),
  );
});
