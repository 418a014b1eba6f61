import { setupListeners } from '@reduxjs/toolkit/query';
import { StrictMode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { holdEarlyClicks, posterPainted } from './app/prerenderedPage';
import { createAppRouter, LandingPage } from './app/router';
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

const root = createRoot(container);
const app = (
  <StrictMode>
    <App store={store} router={createAppRouter()} />
  </StrictMode>
);
// The server sent the landing page prerendered (landing.html). The app replaces it with the same page
// once the page's chunk is loaded (so never with the loading spinner) and its trailer poster has been
// painted (replaced before, the poster would paint again only after the app's script, in a new element);
// clicks made meanwhile reach the same place of the app's page.
if (container.hasChildNodes() && window.location.pathname === '/') {
  const replayClicks = holdEarlyClicks(container);
  const takeOver = (): void => {
    flushSync(() => root.render(app));
    replayClicks();
  };
  void Promise.all([LandingPage.preload(), posterPainted(container)]).then(takeOver, takeOver);
} else {
  root.render(app);
}
