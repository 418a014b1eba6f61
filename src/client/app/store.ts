import { combineSlices, compose, configureStore, type Middleware, type MiddlewareAPI } from '@reduxjs/toolkit';
import { apiSlice } from '../api/apiSlice';

/**
 * The app-only slices (auth, credits, chat, planning, sandbox, execution). Each slice module adds itself
 * with `slice.injectInto(rootReducer)` and names itself here by declaration merging, so its reducer and
 * code load with the lazy chunk that uses it, never with the public pages.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features' `declare module`
export interface LazyLoadedSlices {}

/** RTK Query's cache is the only state the public pages need; the rest is injected (ARCHITECTURE.md, browser budget). */
export const rootReducer = combineSlices(apiSlice).withLazyLoadedSlices<LazyLoadedSlices>();

export type RootState = ReturnType<typeof rootReducer>;

/**
 * A place at the end of the middleware chain that lazily loaded code fills: the saga middleware joins
 * when the first screen with a saga loads (`injectSaga`), so redux-saga stays out of the entry chunk.
 * Unlike RTK's `createDynamicMiddleware`, which mounts what is added at the next dispatch, an added
 * middleware is mounted at once, so that `sagaMiddleware.run` may follow directly.
 */
function createLateMiddleware(): { middleware: Middleware; add: (middleware: Middleware) => void } {
  type Next = (action: unknown) => unknown;
  let api: MiddlewareAPI | null = null;
  let next: Next | null = null;
  const mounted = new Map<Middleware, (next: Next) => Next>();
  let dispatch: Next = (action) => next!(action);
  const rebuild = (): void => {
    dispatch = compose<Next>(...mounted.values())(next!);
  };
  return {
    middleware: (storeApi) => (nextDispatch) => {
      api = storeApi;
      next = nextDispatch;
      return (action) => dispatch(action);
    },
    add: (middleware) => {
      if (mounted.has(middleware)) return;
      mounted.set(middleware, middleware(api!));
      rebuild();
    },
  };
}

/** A fresh store: one per page load, one per test (redux-templates' `makeStore`). */
export function makeStore(preloadedState?: Partial<RootState>) {
  const late = createLateMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    // The development-only checks warn past 32 ms by default: on a busy machine that speaks of the machine, not the state.
    middleware: (getDefaultMiddleware) =>
      getDefaultMiddleware({ immutableCheck: { warnAfter: 500 }, serializableCheck: { warnAfter: 500 } }).concat(apiSlice.middleware, late.middleware),
  });
  return Object.assign(store, {
    /** Mounts `middleware` at the end of the chain now; adding one twice is a no-op. */
    addMiddleware: late.add,
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
