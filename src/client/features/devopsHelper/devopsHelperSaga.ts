import type { Action } from '@reduxjs/toolkit';
import type { Task } from 'redux-saga';
import { all, call, cancel, delay, fork, select, take, takeEvery, put } from 'redux-saga/effects';
import { DEVOPS_HELPER, DEVOPS_HELPER_ERRORS } from '../../../shared/constants';
import type { ApprovalClientMessage, ApprovalServerMessage } from '../../../shared/events';
import type { SocketChannel, SocketEvent } from '../../common/channels/socketChannel';
import { runAgentTurn } from '../../common/chat/chatSaga';
import { selectChatStreaming, selectChatThread, type ChatThread } from '../../common/chat/chatSlice';
import { createApprovalChannel } from './approvalChannel';
import { approvalRequested, devopsHelperChatKey, messageSubmitted, panelClosed, panelOpened } from './devopsHelperSlice';

export const DEVOPS_HELPER_PATHS = { chat: '/devops-helper/chat', kill: '/devops-helper/kill' } as const;

/** Sends `{type:'ping'}` now and every 30 s while the socket is open. */
export function* pingEvery(send: (message: ApprovalClientMessage) => boolean): Generator {
  for (;;) {
    send({ type: 'ping' });
    yield delay(DEVOPS_HELPER.approvalPingMs);
  }
}

/**
 * The approval socket of one project (part 2 sections 4 and 7): a ping on open and every 30 s; each
 * `approval_request` becomes an approval message after the helper's latest chat message; after an
 * unclean close it reconnects in 5 s, after a clean one it stops. Cancelling it closes the socket.
 */
export function* approvalSocket(projectId: number): Generator {
  const key = devopsHelperChatKey(projectId);
  for (;;) {
    const socket = (yield call(createApprovalChannel, projectId)) as SocketChannel<ApprovalServerMessage, ApprovalClientMessage>;
    let ping: Task | null = null;
    let clean = false;
    try {
      for (;;) {
        const event = (yield take(socket.events)) as SocketEvent<ApprovalServerMessage>;
        if (event.type === 'socket/opened') {
          ping = (yield fork(pingEvery, socket.send)) as Task;
        } else if (event.type === 'socket/message') {
          const message = event.payload;
          if (message.type !== 'approval_request') continue;
          const thread = (yield select(selectChatThread, key)) as ChatThread;
          const afterMessageId = thread.messages[thread.messages.length - 1]?.id ?? 0;
          yield put(
            approvalRequested({
              key,
              item: { id: message.id, command: message.command, dangerousReason: message.dangerous_reason ?? null, ...(message.runs_on ? { runsOn: message.runs_on } : {}), afterMessageId },
            }),
          );
        } else if (event.type === 'socket/closed') {
          clean = event.wasClean;
          break;
        }
      }
    } finally {
      if (ping) yield cancel(ping);
      socket.events.close();
    }
    if (clean) return;
    yield delay(DEVOPS_HELPER.approvalReconnectMs);
  }
}

/** One approval socket per open helper page: opened with the page, closed with it. */
export function* approvalSocketsWatcher(): Generator {
  const tasks = new Map<number, Task>();
  for (;;) {
    const action = (yield take([panelOpened.type, panelClosed.type])) as Action & { payload: { projectId: number } };
    const { projectId } = action.payload;
    const running = tasks.get(projectId);
    if (panelOpened.match(action)) {
      if (!running?.isRunning()) tasks.set(projectId, (yield fork(approvalSocket, projectId)) as Task);
    } else if (running) {
      yield cancel(running);
      tasks.delete(projectId);
    }
  }
}

/**
 * A message to the helper: ignored when blank or while a reply streams; otherwise one turn of the
 * common chat (Stop calls /devops-helper/kill). Failures read 'Failed to send message. Please try
 * again.' when the call could not start, 'Server error: {detail}' for an error from the stream.
 */
export function* helperMessageWorker(action: ReturnType<typeof messageSubmitted>): Generator {
  const { projectId, message } = action.payload;
  const key = devopsHelperChatKey(projectId);
  if (!message.trim()) return;
  if ((yield select(selectChatStreaming, key)) as boolean) return;
  const thread = (yield select(selectChatThread, key)) as ChatThread;
  const body = thread.threadId ? { message, thread_id: thread.threadId } : { message };
  yield call(runAgentTurn, {
    key,
    request: { path: DEVOPS_HELPER_PATHS.chat, body },
    userMessage: message,
    killPath: DEVOPS_HELPER_PATHS.kill,
    failureText: (failure) => (failure.phase === 'start' ? DEVOPS_HELPER_ERRORS.sendWithRetry : DEVOPS_HELPER_ERRORS.server(failure.message)),
  });
}

/** The DevOps Helper's saga: its chat turns and its approval sockets. */
export function* devopsHelperSaga(): Generator {
  yield all([takeEvery(messageSubmitted.type, helperMessageWorker), call(approvalSocketsWatcher)]);
}
