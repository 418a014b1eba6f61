import type { Saga } from 'redux-saga';
import { expectSaga } from 'redux-saga-test-plan';
import { rootReducer, type RootState } from '../../../src/client/app/store';

export { expectSaga, testSaga } from 'redux-saga-test-plan';
export * as matchers from 'redux-saga-test-plan/matchers';
export { dynamic, throwError } from 'redux-saga-test-plan/providers';

/**
 * `expectSaga` over the app's real reducer, so `hasFinalState`, `select` and selectors see the real
 * state shape. `state` overrides parts of the initial state.
 */
export function expectSagaWithStore<S extends Saga>(
  saga: S,
  state: Partial<RootState> = {},
  ...args: Parameters<S>
): ReturnType<typeof expectSaga> {
  const initial = { ...rootReducer(undefined, { type: '@@test/init' }), ...state } as RootState;
  return expectSaga(saga, ...args).withReducer(rootReducer, initial);
}
