import '@testing-library/jest-dom';
import { cleanup, configure } from '@testing-library/react';
import { browser } from '../../src/client/common/browser';
import { closeMockSockets } from './utils/mockSocket';
import { resetDb, server } from './utils/server';

// Lazy route chunks and sagas on a loaded 2-core CI machine (or beside another test run) can take
// far longer than the default 1 s; a waitFor that passes returns as soon as it does.
configure({ asyncUtilTimeout: 15_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));

beforeEach(() => {
  jest.spyOn(browser, 'assign').mockImplementation(() => undefined);
});

afterEach(() => {
  // Unmount first, so nothing still mounted reacts to the resets below.
  cleanup();
  server.resetHandlers();
  resetDb();
  closeMockSockets();
  window.sessionStorage.clear();
  window.localStorage.clear();
  window.history.replaceState(null, '', '/');
  document.title = '';
  jest.restoreAllMocks();
});

afterAll(() => server.close());
