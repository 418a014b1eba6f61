import { setupListeners } from '@reduxjs/toolkit/query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createAppRouter } from './app/router';
import { makeStore } from './app/store';

declare global {
  interface Window {
    __REDUX_DEVTOOLS_EXTENSION_COMPOSE__?: unknown;
  }
}

const store = makeStore();
// With Redux DevTools open, every reducer and endpoint registers at once, so that a recorded action log
// replays into this fresh page with the same state (see app/stateModules.ts).
if (window.__REDUX_DEVTOOLS_EXTENSION_COMPOSE__) {
  void import(/* webpackChunkName: "devtools-state" */ './app/stateModules').then(() => store.dispatch({ type: 'devtools/stateModulesLoaded' }));
}
// Refetch on focus and reconnect, and pause polling while the tab is hidden.
setupListeners(store.dispatch);

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App store={store} router={createAppRouter()} />
  </StrictMode>,
);
