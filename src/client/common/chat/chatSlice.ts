import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { CHAT, type ChatRole } from '../../../shared/constants';
import { rootReducer } from '../../app/store';
import { historyBefore } from './chatHistory';

/** How an assistant message came to be, when it is not the agent's own words. */
export type ChatNoticeKind = 'error' | 'stopped' | 'outOfCredits';

export interface ChatMessage {
  /** Stable within its chat, for React keys. */
  id: number;
  role: ChatRole;
  content: string;
  /** The assistant reply that is still streaming. */
  pending?: boolean;
  kind?: ChatNoticeKind;
}

/** One conversation: an agent within a project (`chatKey`). */
export interface ChatThread {
  messages: ChatMessage[];
  /** From the streamed events (or the stored thread on reload); sent back to continue the conversation. */
  threadId: string | null;
  /** The model answering, so that a person knows when the offline planner speaks. */
  model: string | null;
  status: 'idle' | 'streaming';
  /** Stop was pressed during the current turn: its error text is suppressed. */
  stopRequested: boolean;
  /** The stored conversation was loaded (or found empty); it is loaded once per page. */
  restored: boolean;
  nextId: number;
}

export interface ChatState {
  threads: Record<string, ChatThread>;
}

/** The key of a chat: one conversation per agent and project, e.g. '7:requirements'. */
export const chatKey = (projectId: number, agent: string): string => `${projectId}:${agent}`;

export const emptyThread: ChatThread = {
  messages: [],
  threadId: null,
  model: null,
  status: 'idle',
  stopRequested: false,
  restored: false,
  nextId: 1,
};

/** What a chat sends to, and how its Stop stops it. */
export interface ChatEndpoint {
  /** Stream path under /api, e.g. '/planning/requirements-gatherer'. */
  path: string;
  /** GET sends the message and thread in the query (execution, validation); POST (the default) in a JSON body. */
  method?: 'GET' | 'POST';
  /** Kill path under /api, called by Stop; without one, Stop ends the stream, which stops the server's turn. */
  killPath?: string;
}

export interface MessageSubmittedPayload extends ChatEndpoint {
  key: string;
  message: string;
}

const initialState: ChatState = { threads: {} };

function threadOf(state: ChatState, key: string): ChatThread {
  state.threads[key] ??= { ...emptyThread, messages: [] };
  return state.threads[key];
}

function push(thread: ChatThread, role: ChatRole, content: string, extra: Partial<ChatMessage> = {}): void {
  thread.messages.push({ id: thread.nextId, role, content, ...extra });
  thread.nextId += 1;
}

/** The streaming assistant message, if the last message is one. */
function pendingReply(thread: ChatThread): ChatMessage | undefined {
  const last = thread.messages[thread.messages.length - 1];
  return last?.role === 'assistant' && last.pending ? last : undefined;
}

/** Ends the turn with a notice: it takes the place of a reply that said nothing yet, else follows it. */
function endWithNotice(thread: ChatThread, content: string, kind: ChatNoticeKind): void {
  const reply = pendingReply(thread);
  if (reply && reply.content === '') {
    reply.content = content;
    reply.kind = kind;
    reply.pending = false;
  } else {
    if (reply) reply.pending = false;
    push(thread, 'assistant', content, { kind });
  }
}

function settle(thread: ChatThread): void {
  const reply = pendingReply(thread);
  if (reply) {
    if (reply.content === '') thread.messages.pop();
    else reply.pending = false;
  }
  thread.status = 'idle';
  thread.stopRequested = false;
}

/**
 * Every agent chat's conversation (part 1 section 2, "Chat behaviour"): messages alternate user /
 * assistant, a reply streams into the last assistant message ('Thinking...' until its first content),
 * Stop and failures end it with their texts. `chatSaga` drives it; the actions are events.
 */
export const chatSlice = createSlice({
  name: 'chat',
  initialState,
  reducers: {
    /**
     * The person (or a confirm flow) sent a message. `chatSaga` ignores it when the text is blank or a
     * reply is streaming (part 1 section 5); otherwise it starts a turn.
     */
    messageSubmitted(_state, _action: PayloadAction<MessageSubmittedPayload>) {},
    /** Stop was pressed: the saga aborts the stream and calls the kill endpoint. */
    stopRequested(state, action: PayloadAction<{ key: string }>) {
      const thread = state.threads[action.payload.key];
      if (thread?.status === 'streaming') thread.stopRequested = true;
    },
    /**
     * A turn begins: the user's message (none for the empty message sent after an analysis) and an
     * empty assistant reply that shows 'Thinking...' until content arrives.
     */
    turnStarted(state, action: PayloadAction<{ key: string; userMessage: string | null }>) {
      const thread = threadOf(state, action.payload.key);
      const { userMessage } = action.payload;
      if (userMessage) push(thread, 'user', userMessage);
      push(thread, 'assistant', '', { pending: true });
      thread.status = 'streaming';
      thread.stopRequested = false;
    },
    /** Streamed content. `ownThread` is false for a stream of another agent shown in this chat (the analyser's). */
    chunkReceived(
      state,
      action: PayloadAction<{ key: string; content: string; threadId: string; model: string | null; ownThread: boolean }>,
    ) {
      const thread = threadOf(state, action.payload.key);
      const { content, threadId, model, ownThread } = action.payload;
      if (ownThread) thread.threadId = threadId;
      if (model) thread.model = model;
      const reply = pendingReply(thread);
      if (reply) reply.content += content;
      else if (content) push(thread, 'assistant', content, { pending: true });
    },
    turnEnded(state, action: PayloadAction<{ key: string; threadId: string | null; model: string | null; ownThread: boolean }>) {
      const thread = threadOf(state, action.payload.key);
      const { threadId, model, ownThread } = action.payload;
      if (ownThread && threadId) thread.threadId = threadId;
      if (model) thread.model = model;
      settle(thread);
    },
    /** The turn failed; `text` is the reply to show. Suppressed after Stop (part 1 section 8). */
    turnFailed(state, action: PayloadAction<{ key: string; text: string; kind: 'error' | 'outOfCredits' }>) {
      const thread = threadOf(state, action.payload.key);
      if (!thread.stopRequested) endWithNotice(thread, action.payload.text, action.payload.kind);
      settle(thread);
    },
    /** Stop finished: 'Generation stopped by user.' */
    turnStopped(state, action: PayloadAction<{ key: string }>) {
      const thread = threadOf(state, action.payload.key);
      endWithNotice(thread, CHAT.generationStopped, 'stopped');
      settle(thread);
    },
    /**
     * The stored conversation, read on first show so that a reload shows the thread again: it goes before
     * what this page already said in the chat (`historyBefore`), once per page.
     */
    threadRestored(
      state,
      action: PayloadAction<{
        key: string;
        threadId: string | null;
        model: string | null;
        messages: ReadonlyArray<{ role: ChatRole; content: string }>;
      }>,
    ) {
      const thread = threadOf(state, action.payload.key);
      if (thread.restored) return;
      thread.restored = true;
      thread.threadId ??= action.payload.threadId;
      thread.model ??= action.payload.model;
      const live = thread.messages.splice(0);
      for (const message of historyBefore(action.payload.messages, live)) {
        if (message.content) push(thread, message.role, message.content);
      }
      thread.messages.push(...live);
    },
  },
  selectors: {
    selectChatThread: (state, key: string): ChatThread => state.threads[key] ?? emptyThread,
    selectChatStreaming: (state, key: string): boolean => state.threads[key]?.status === 'streaming',
  },
});

export const { messageSubmitted, stopRequested, turnStarted, chunkReceived, turnEnded, turnFailed, turnStopped, threadRestored } =
  chatSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof chatSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedChatSlice = chatSlice.injectInto(rootReducer);
export const { selectChatThread, selectChatStreaming } = injectedChatSlice.selectors;
