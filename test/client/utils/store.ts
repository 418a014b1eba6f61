import { injectSaga } from '../../../src/client/app/injectSaga';
import { makeStore, type AppStore, type RootState } from '../../../src/client/app/store';
import { authSaga } from '../../../src/client/common/auth/authSaga';
import { chatSaga } from '../../../src/client/common/chat/chatSaga';
import { creditsSaga } from '../../../src/client/features/credits/creditsSaga';
import { executionSaga } from '../../../src/client/features/execution/executionSaga';
import { planningSaga } from '../../../src/client/features/planning/planningSaga';
import { sandboxInitSaga } from '../../../src/client/features/planning/sandboxInitSaga';

/** Every saga the lazy chunks start; importing them also injects every app-only slice. */
const APP_SAGAS = [authSaga, creditsSaga, chatSaga, planningSaga, sandboxInitSaga, executionSaga];

/**
 * The store as the app has it once every lazy feature has loaded: every slice injected and every saga
 * running, so that a test may dispatch a feature's action without first rendering the screen that
 * starts its saga. A screen rendered on it starting a saga again changes nothing (`injectSaga` runs a
 * saga once per store). Tests of the lazy loading itself use a bare `makeStore()`.
 */
export function makeAppStore(preloadedState?: Partial<RootState>): AppStore {
  const store = makeStore(preloadedState);
  for (const saga of APP_SAGAS) injectSaga(store, saga);
  return store;
}
