import { render, type RenderOptions, type RenderResult } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type InitialEntry, type RouteObject } from 'react-router-dom';
import { AppProviders } from '../../../src/client/app/App';
import { appRoutes } from '../../../src/client/app/router';
import type { AppStore, RootState } from '../../../src/client/app/store';
import { makeAppStore } from './store';

type MemoryRouter = ReturnType<typeof createMemoryRouter>;

export interface ProviderOptions extends Omit<RenderOptions, 'wrapper' | 'queries'> {
  /** State to start the real store with. */
  preloadedState?: Partial<RootState>;
  /** A store made by the test; otherwise a fresh `makeAppStore(preloadedState)` (every feature loaded). */
  store?: AppStore;
  /** Where the memory router starts: a URL, or an entry with navigation state. */
  route?: InitialEntry;
  /** The route pattern `ui` is mounted at, so that `useParams` works (default `*`). */
  path?: string;
  /** More routes beside `ui`, e.g. the pages it navigates to. */
  routes?: RouteObject[];
  /** The error element of `ui`'s route (the app uses RouteErrorPage). */
  errorElement?: ReactElement;
  /** With jest fake timers: user-event advances them instead of waiting. */
  fakeTimers?: boolean;
}

export interface ProviderResult extends RenderResult {
  store: AppStore;
  router: MemoryRouter;
  user: ReturnType<typeof userEvent.setup>;
}

function entryHref(entry: InitialEntry): string {
  if (typeof entry === 'string') return entry;
  return `${entry.pathname ?? '/'}${entry.search ?? ''}${entry.hash ?? ''}`;
}

/**
 * Keeps `window.location` in step with the memory router, as a browser router would, so that code
 * reading the address bar (the Project-Id header) sees the URL the test navigated to.
 */
function mirrorLocation(router: MemoryRouter, initial: InitialEntry): void {
  window.history.replaceState(null, '', entryHref(initial));
  router.subscribe((state) => {
    const { pathname, search, hash } = state.location;
    window.history.replaceState(null, '', `${pathname}${search}${hash}`);
  });
}

function renderRouter(router: MemoryRouter, initial: InitialEntry, options: ProviderOptions): ProviderResult {
  const { preloadedState, store = makeAppStore(preloadedState), fakeTimers, ...renderOptions } = options;
  mirrorLocation(router, initial);
  const user = userEvent.setup(fakeTimers ? { advanceTimers: jest.advanceTimersByTime } : {});
  const result = render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
    renderOptions,
  );
  return { ...result, store, router, user };
}

/** Renders `ui` with a real store, the theme and a memory router (redux-templates' test utility). */
export function renderWithProviders(ui: ReactElement, options: ProviderOptions = {}): ProviderResult {
  const { route = '/', path = '*', routes = [], errorElement, ...rest } = options;
  const router = createMemoryRouter([{ path, element: ui, errorElement }, ...routes], { initialEntries: [route] });
  return renderRouter(router, route, rest);
}

/** Renders the whole app, every route and guard of `appRoutes`, starting at `route`. */
export function renderApp(
  route: InitialEntry = '/',
  options: Omit<ProviderOptions, 'route' | 'path' | 'routes' | 'errorElement'> = {},
): ProviderResult {
  const router = createMemoryRouter(appRoutes, { initialEntries: [route] });
  return renderRouter(router, route, options);
}
