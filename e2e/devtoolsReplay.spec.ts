import { expect, test, type Page } from '@playwright/test';

/**
 * Redux DevTools replay (issue 13): an action log recorded in one session, replayed into a freshly
 * loaded app, gives the same state. The extension is stood in for by what it does: RTK's
 * configureStore composes through `window.__REDUX_DEVTOOLS_EXTENSION_COMPOSE__`; the stand-in records
 * every action the store's reducer sees, and replays a log through the page's own root reducer, as
 * the extension's import does.
 */

interface DevtoolsProbe {
  log: unknown[];
  reducer: ((state: unknown, action: unknown) => unknown) | null;
  store: { getState: () => unknown } | null;
}

function installDevtoolsStandIn(): void {
  type Reducer = (state: unknown, action: unknown) => unknown;
  type CreateStore = (reducer: Reducer, preloaded?: unknown) => { getState: () => unknown };
  type Enhancer = (next: CreateStore) => CreateStore;
  const probe: DevtoolsProbe = { log: [], reducer: null, store: null };
  const host = window as unknown as { __devtools: DevtoolsProbe; __REDUX_DEVTOOLS_EXTENSION_COMPOSE__: unknown };
  host.__devtools = probe;
  const enhance =
    (enhancers: Enhancer[]): Enhancer =>
    (createStore) =>
    (reducer, preloaded) => {
      probe.reducer = reducer;
      const recording: Reducer = (state, action) => {
        probe.log.push(JSON.parse(JSON.stringify(action)));
        return reducer(state, action);
      };
      const store = enhancers.reduceRight<CreateStore>((next, enhancer) => enhancer(next), createStore)(recording, preloaded);
      probe.store = store;
      return store;
    };
  // Called with options first (RTK's configureStore), then with the store enhancers.
  host.__REDUX_DEVTOOLS_EXTENSION_COMPOSE__ = (...args: unknown[]) =>
    args.length > 0 && typeof args[0] === 'object' ? (...enhancers: Enhancer[]) => enhance(enhancers) : enhance(args as Enhancer[]);
}

async function devtoolsReady(page: Page): Promise<void> {
  // The page registers every reducer and endpoint once it sees DevTools (app/stateModules.ts).
  await page.waitForFunction(() =>
    (window as unknown as { __devtools: DevtoolsProbe }).__devtools.log.some((action) => (action as { type: string }).type === 'devtools/stateModulesLoaded'),
  );
}

test('a DevTools action log recorded in one session replays into a freshly loaded app with the same state', async ({ browser }) => {
  test.setTimeout(120_000);
  const recordingContext = await browser.newContext();
  await recordingContext.addInitScript(installDevtoolsStandIn);
  const page = await recordingContext.newPage();
  await page.goto('/signin');
  await devtoolsReady(page);
  await page.getByLabel('Login name').fill(`e2e-devtools-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  // The credits dialog (the credits slice and its endpoints) ...
  await page.getByRole('button', { name: 'View & Add Credits' }).click();
  const credits = page.getByRole('dialog');
  await credits.getByLabel('Amount (USD)').fill('12');
  await credits.getByRole('button', { name: 'Close', exact: true }).click();
  // ... a project, its workspace and the planning chat's endpoints.
  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project name').fill('Replayed');
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(page.getByRole('region', { name: 'Collected Requirements', exact: true })).toBeVisible();
  // Back in the app (not a reload: the log is this page's).
  await page.getByRole('link', { name: 'Return to Projects' }).click();
  await expect(page.getByRole('heading', { name: 'Replayed', exact: true })).toBeVisible();

  const recorded = await page.evaluate(() => {
    const probe = (window as unknown as { __devtools: DevtoolsProbe }).__devtools;
    return { log: probe.log, state: JSON.parse(JSON.stringify(probe.store!.getState())) as Record<string, unknown> };
  });
  expect(recorded.log.length).toBeGreaterThan(20);
  expect(Object.keys(recorded.state)).toEqual(expect.arrayContaining(['api', 'credits', 'chat']));

  // A fresh app in a fresh browser context: nothing of the session, only the landing page's chunks.
  const freshContext = await browser.newContext();
  await freshContext.addInitScript(installDevtoolsStandIn);
  const fresh = await freshContext.newPage();
  await fresh.goto('/');
  await devtoolsReady(fresh);
  const replay = await fresh.evaluate((log) => {
    const probe = (window as unknown as { __devtools: DevtoolsProbe }).__devtools;
    try {
      const state = log.reduce<unknown>((current, action) => probe.reducer!(current, action), undefined);
      return { state: JSON.parse(JSON.stringify(state)) as Record<string, unknown>, error: null };
    } catch (error) {
      return { state: null, error: String(error) };
    }
  }, recorded.log);
  expect(replay.error).toBeNull();
  // One flag differs by design: RTK Query marks its middleware's registration with a random id of the
  // page's api instance, so a log from another page reads as 'conflict'. It is a diagnostic, not state.
  const withoutRegistration = (state: Record<string, unknown> | null): unknown =>
    state && { ...state, api: { ...(state.api as object), config: { ...((state.api as { config: object }).config), middlewareRegistered: null } } };
  expect(withoutRegistration(replay.state)).toEqual(withoutRegistration(recorded.state));
  test.info().annotations.push({ type: 'replay', description: `${recorded.log.length} actions replayed into a fresh app: same state` });
  await recordingContext.close();
  await freshContext.close();
});
