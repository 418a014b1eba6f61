import { createSlice, nanoid, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import type { ChatRole } from '../../../shared/constants';
import { rootReducer } from '../../app/store';
import { historyBefore } from '../../common/chat/chatHistory';
import { executionApi } from './executionApi';
import { toViewSteps } from './executionModel';
import { stepActionReducers, stepActions, type PendingStepAction, type StepActionKind } from './stepActions';

export type { PendingStepAction, StepActionKind } from './stepActions';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export type ChatStatus = 'idle' | 'sending' | 'streaming';

/** The execution agent's chat of one project (the stage shows one project at a time). */
export interface ExecutionChat {
  /** Whose chat this is; another project's stage starts its own. */
  projectId: number | null;
  messages: ChatMessage[];
  status: ChatStatus;
  threadId: string | null;
  /** The stored conversation was read back (once per page and project). */
  restored: boolean;
}

const emptyChat = (projectId: number | null): ExecutionChat => ({ projectId, messages: [], status: 'idle', threadId: null, restored: false });

export interface ExecutionState {
  autoApprove: boolean;
  autoRetry: boolean;
  /** Why Auto-Retry last left a failed step alone (null when it did not). */
  autoRetryNote: string | null;
  /** Keyed by step number. */
  pendingActions: Record<string, PendingStepAction>;
  chat: ExecutionChat;
  proceed: { status: 'idle' | 'pending' | 'failed'; error: string | null };
  /** Text a step card offers the chat's message box ('Change step N: '), new id each time. */
  offeredDraft?: { id: string; text: string };
}

const initialState: ExecutionState = {
  autoApprove: false,
  autoRetry: false,
  autoRetryNote: null,
  pendingActions: {},
  chat: emptyChat(null),
  proceed: { status: 'idle', error: null },
};

export interface StepActionRequest {
  projectId: number;
  planId: number;
  stepNumber: number;
  kind: StepActionKind;
  /** Who asked: a person on a card, or the auto-approve / auto-retry sagas. */
  source: 'user' | 'autoApprove' | 'autoRetry';
}

export const executionSlice = createSlice({
  name: 'execution',
  initialState,
  reducers: {
    autoApproveToggled(state, action: PayloadAction<boolean>) {
      state.autoApprove = action.payload;
    },
    autoRetryToggled(state, action: PayloadAction<boolean>) {
      state.autoRetry = action.payload;
      if (!action.payload) state.autoRetryNote = null;
    },
    autoRetrySkipped(state, action: PayloadAction<string | null>) {
      state.autoRetryNote = action.payload;
    },
    /** A step card's 'Change with the agent': the chat shows its Chat tab with this text to finish. */
    chatDraftOffered: {
      reducer(state, action: PayloadAction<string, string, { id: string }>) {
        state.offeredDraft = { id: action.meta.id, text: action.payload };
      },
      prepare(text: string) {
        return { payload: text, meta: { id: nanoid() } };
      },
    },
    ...stepActionReducers<StepActionRequest>(),

    /** Ignored when blank or while a reply is in progress (part 2 section 5). */
    chatMessageSent(state, action: PayloadAction<{ projectId: number; message: string }>) {
      if (state.chat.status !== 'idle' || !action.payload.message.trim()) return;
      if (state.chat.projectId !== action.payload.projectId) state.chat = emptyChat(action.payload.projectId);
      state.chat.messages.push({ role: 'user', content: action.payload.message });
      state.chat.messages.push({ role: 'assistant', content: '' });
      state.chat.status = 'sending';
    },
    chatChunkReceived(state, action: PayloadAction<{ content: string; threadId: string | null }>) {
      if (state.chat.status === 'idle') return;
      const last = state.chat.messages[state.chat.messages.length - 1];
      if (last?.role === 'assistant') last.content += action.payload.content;
      if (action.payload.threadId) state.chat.threadId = action.payload.threadId;
      state.chat.status = 'streaming';
    },
    chatStreamEnded(state, action: PayloadAction<{ threadId: string | null }>) {
      if (action.payload.threadId) state.chat.threadId = action.payload.threadId;
      state.chat.status = 'idle';
    },
    /** The stream failed: the assistant bubble says so (`CHAT.errorReply` in the payload). */
    chatStreamFailed(state, action: PayloadAction<string>) {
      appendAssistant(state, action.payload);
      state.chat.status = 'idle';
    },
    /** Stop: the saga aborts the stream; `CHAT.generationStopped` follows in `chatStopped`. */
    chatStopRequested() {},
    chatStopped(state, action: PayloadAction<string>) {
      appendAssistant(state, action.payload);
      state.chat.status = 'idle';
    },

    /**
     * The stored conversation (GET /api/execution/thread), read when the chat first shows so that a
     * reload shows it again; it goes before what this page already said (`historyBefore`).
     */
    chatHistoryLoaded(state, action: PayloadAction<{ projectId: number; threadId: string | null; messages: ChatMessage[] }>) {
      const { projectId, threadId, messages } = action.payload;
      if (state.chat.projectId !== projectId) {
        if (state.chat.status !== 'idle') return;
        state.chat = emptyChat(projectId);
      }
      const chat = state.chat;
      if (chat.restored) return;
      chat.restored = true;
      chat.threadId ??= threadId;
      chat.messages = [...historyBefore(messages, chat.messages), ...chat.messages];
    },

    proceedToValidationRequested(state, _action: PayloadAction<{ projectId: number }>) {
      state.proceed = { status: 'pending', error: null };
    },
    proceedToValidationSucceeded(state) {
      state.proceed = { status: 'idle', error: null };
    },
    proceedToValidationFailed(state, action: PayloadAction<string>) {
      state.proceed = { status: 'failed', error: action.payload };
    },
  },
  extraReducers: (builder) => {
    // A pending action ends when the step shows the result of the call: in progress or failed.
    builder.addMatcher(executionApi.endpoints.getExecutionProgress.matchFulfilled, (state, action) => {
      if (Array.isArray(action.payload.steps)) stepActions.progressed(state.pendingActions, toViewSteps(action.payload.steps));
    });
  },
  selectors: {
    selectAutoApprove: (state) => state.autoApprove,
    selectAutoRetry: (state) => state.autoRetry,
    selectAutoRetryNote: (state) => state.autoRetryNote,
    selectPendingActions: (state) => state.pendingActions,
    selectChat: (state) => state.chat,
    selectOfferedDraft: (state) => state.offeredDraft,
    selectProceed: (state) => state.proceed,
  },
});

/** The empty assistant bubble of a turn that produced nothing is replaced rather than left empty. */
function appendAssistant(state: ExecutionState, content: string): void {
  const last = state.chat.messages[state.chat.messages.length - 1];
  if (last?.role === 'assistant' && !last.content) last.content = content;
  else state.chat.messages.push({ role: 'assistant', content });
}

export const {
  autoApproveToggled,
  autoRetryToggled,
  autoRetrySkipped,
  chatDraftOffered,
  stepActionRequested,
  stepActionFailed,
  stepActionAnswered,
  chatMessageSent,
  chatChunkReceived,
  chatStreamEnded,
  chatStreamFailed,
  chatStopRequested,
  chatStopped,
  chatHistoryLoaded,
  proceedToValidationRequested,
  proceedToValidationSucceeded,
  proceedToValidationFailed,
} = executionSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof executionSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedExecutionSlice = executionSlice.injectInto(rootReducer);
export const { selectAutoApprove, selectAutoRetry, selectAutoRetryNote, selectPendingActions, selectChat, selectProceed, selectOfferedDraft } = injectedExecutionSlice.selectors;
