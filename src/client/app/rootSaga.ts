import { all, fork } from 'redux-saga/effects';
import { authSaga } from '../features/auth/authSaga';
import { chatSaga } from '../features/chat/chatSaga';
import { creditsSaga } from '../features/credits/creditsSaga';
import { executionSaga } from '../features/execution/executionSaga';
import { planningSaga } from '../features/planning/planningSaga';
import { sandboxInitSaga } from '../features/sandbox/sandboxInitSaga';

/**
 * Sagas carry streams, sockets and multi-step workflows only (STYLE.md, habit 2); REST and polling go
 * through RTK Query. Each feature adds its watcher here.
 */
export function* rootSaga(): Generator {
  yield all([fork(authSaga), fork(creditsSaga), fork(chatSaga), fork(planningSaga), fork(sandboxInitSaga), fork(executionSaga)]);
}
