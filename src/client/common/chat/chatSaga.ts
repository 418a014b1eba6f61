import type { Action } from '@reduxjs/toolkit';
import type { EventChannel } from 'redux-saga';
import { call, cancelled, put, race, select, take, takeEvery } from 'redux-saga/effects';
import { CHAT } from '../../../shared/constants';
import { chatApi } from './chatApi';
import {
  chunkReceived,
  messageSubmitted,
  selectChatStreaming,
  selectChatThread,
  stopRequested,
  turnEnded,
  turnFailed,
  turnStarted,
  turnStopped,
  type ChatThread,
} from './chatSlice';
import { createAgentStreamChannel, type AgentStreamEvent, type AgentStreamRequest } from './streamChannel';

/** How a turn ended, for the workflows that chain turns (analysis, then requirements gathering). */
export type TurnOutcome =
  | { status: 'ended' }
  | { status: 'stopped' }
  | { status: 'failed'; phase: 'start' | 'stream'; httpStatus: number | null; message: string };

export interface AgentTurn {
  /** The chat the turn shows in. */
  key: string;
  request: AgentStreamRequest;
  /** Shown as the user's message; null sends without one (the empty message after an analysis). */
  userMessage: string | null;
  /** Kill path under /api for Stop (none: ending the stream stops the server's turn). */
  killPath?: string;
  /** False when another agent speaks in this chat (the analyser): its thread id is not the chat's. */
  ownThread?: boolean;
  /** The reply text of a failure; the default is 'Sorry, I encountered an error. Please try again.' */
  failureText?: (failure: Extract<TurnOutcome, { status: 'failed' }>) => string;
}

const PAYMENT_REQUIRED = 402;

const isStopFor =
  (key: string) =>
  (action: Action): boolean =>
    stopRequested.match(action) && action.payload.key === key;

/** Reads one turn's events into the chat until the stream ends or fails. */
export function* readTurn(channel: EventChannel<AgentStreamEvent>, turn: AgentTurn): Generator<unknown, TurnOutcome> {
  const ownThread = turn.ownThread ?? true;
  try {
    while (true) {
      const event = (yield take(channel)) as AgentStreamEvent;
      switch (event.type) {
        case 'stream/opened':
          break;
        case 'stream/chunk':
          yield put(chunkReceived({ key: turn.key, content: event.content, threadId: event.threadId, model: event.model, ownThread }));
          break;
        case 'stream/ended':
          yield put(turnEnded({ key: turn.key, threadId: event.threadId, model: event.model, ownThread }));
          return { status: 'ended' };
        case 'stream/failed':
          return { status: 'failed', phase: event.phase, httpStatus: event.status, message: event.message };
      }
    }
  } finally {
    if ((yield cancelled()) as boolean) channel.close();
  }
}

/** POST to the kill path through RTK Query; whatever it answers, the stop goes on. */
export function* requestKill(killPath: string): Generator {
  const request = (yield put(chatApi.endpoints.killGeneration.initiate(killPath))) as KillRequest;
  yield call(() => request);
  request.reset();
}

type KillRequest = ReturnType<ReturnType<typeof chatApi.endpoints.killGeneration.initiate>>;

/**
 * One agent turn in a chat (part 1 section 4, "Chat"): idle → streaming → idle at the end-of-model
 * event. Stop aborts the stream, calls the kill endpoint and appends 'Generation stopped by user.';
 * a failure appends its text (suppressed after Stop); a 402 shows the server's out-of-credits detail
 * with the way to add credits; a 401 ends the session like every other call.
 */
export function* runAgentTurn(turn: AgentTurn): Generator<unknown, TurnOutcome> {
  yield put(turnStarted({ key: turn.key, userMessage: turn.userMessage }));
  const channel = (yield call(createAgentStreamChannel, turn.request)) as EventChannel<AgentStreamEvent>;
  const { outcome } = (yield race({ outcome: call(readTurn, channel, turn), stop: take(isStopFor(turn.key)) })) as {
    outcome?: TurnOutcome;
  };
  if (!outcome) {
    if (turn.killPath) yield call(requestKill, turn.killPath);
    yield put(turnStopped({ key: turn.key }));
    return { status: 'stopped' };
  }
  if (outcome.status === 'failed') {
    const outOfCredits = outcome.httpStatus === PAYMENT_REQUIRED;
    const text = outOfCredits ? outcome.message : (turn.failureText?.(outcome) ?? CHAT.errorReply);
    yield put(turnFailed({ key: turn.key, text, kind: outOfCredits ? 'outOfCredits' : 'error' }));
  }
  return outcome;
}

/** A message from the chat input (or a confirm flow): blank text or a running reply → not sent. */
export function* messageSubmittedWorker(action: ReturnType<typeof messageSubmitted>): Generator {
  const { key, message, path, method, killPath } = action.payload;
  if (!message.trim()) return;
  const streaming = (yield select(selectChatStreaming, key)) as boolean;
  if (streaming) return;
  const thread = (yield select(selectChatThread, key)) as ChatThread;
  const fields: Record<string, string> = thread.threadId ? { message, thread_id: thread.threadId } : { message };
  const request: AgentStreamRequest = method === 'GET' ? { path, method, query: fields } : { path, body: fields };
  yield call(runAgentTurn, { key, request, userMessage: message, ...(killPath ? { killPath } : {}) });
}

/** The one streaming saga of every chat: each submitted message runs its turn. */
export function* chatSaga(): Generator {
  yield takeEvery(messageSubmitted.type, messageSubmittedWorker);
}
