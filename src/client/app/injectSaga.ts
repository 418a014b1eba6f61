import createSagaMiddleware, { type Saga, type SagaMiddleware } from 'redux-saga';
import { useAppStore } from './hooks';
import type { AppStore } from './store';

interface SagaHost {
  middleware: SagaMiddleware;
  running: Set<Saga>;
}

/** Per store: tests make many stores, and each runs its own sagas. */
const hosts = new WeakMap<AppStore, SagaHost>();

/**
 * Starts `saga` on `store` once: a second call with the same saga (StrictMode's double render, a
 * remount, two screens needing one feature) does nothing. The first call mounts the saga middleware.
 * Sagas carry streams, sockets and workflows (STYLE.md, habit 2); a feature's saga starts with the lazy
 * chunk that dispatches its actions, and then runs for the life of the page, as it did from the entry.
 */
export function injectSaga(store: AppStore, saga: Saga<[]>): void {
  let host = hosts.get(store);
  if (!host) {
    host = { middleware: createSagaMiddleware(), running: new Set() };
    store.addMiddleware(host.middleware);
    hosts.set(store, host);
  }
  if (host.running.has(saga)) return;
  host.running.add(saga);
  host.middleware.run(saga);
}

/**
 * For the component at the top of a lazy chunk: starts the sagas its screen needs during its render,
 * so that they listen before any child's effect or click dispatches (sagas only `take` when they start).
 */
export function useInjectSaga(...sagas: Array<Saga<[]>>): void {
  const store = useAppStore();
  for (const saga of sagas) injectSaga(store, saga);
}
