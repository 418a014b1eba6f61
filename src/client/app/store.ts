import { combineSlices, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { apiSlice } from '../api/apiSlice';
import { authSlice } from '../features/auth/authSlice';
import { chatSlice } from '../features/chat/chatSlice';
import { creditsSlice } from '../features/credits/creditsSlice';
import { executionSlice } from '../features/execution/executionSlice';
import { planningSlice } from '../features/planning/planningSlice';
import { sandboxSlice } from '../features/sandbox/sandboxSlice';
import { rootSaga } from './rootSaga';

/** Slices that later features inject lazily can join with `rootReducer.inject(slice)`. */
export const rootReducer = combineSlices(apiSlice, authSlice, creditsSlice, chatSlice, planningSlice, sandboxSlice, executionSlice);

export type RootState = ReturnType<typeof rootReducer>;

/** A fresh store: one per page load, one per test (redux-templates' `makeStore`). */
export function makeStore(preloadedState?: Partial<RootState>) {
  const sagaMiddleware = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefaultMiddleware) => getDefaultMiddleware().concat(apiSlice.middleware, sagaMiddleware),
  });
  sagaMiddleware.run(rootSaga);
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
