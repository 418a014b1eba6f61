import { browser } from '../../../../src/client/common/browser';
import { clearSession } from '../../../../src/client/common/session';
import { runSaga } from 'redux-saga';
import {
  authSaga,
  loadHiddenPage,
  requestLogout,
  signOutWorker,
} from '../../../../src/client/common/auth/authSaga';
import { selectSignOutPending, signOutRequested } from '../../../../src/client/common/auth/authSlice';
import { PATHS, TIMING } from '../../../../src/shared/constants';
import { expectSagaWithStore, matchers } from '../../utils/sagaHelpers';

describe('authSaga', () => {
  it('runs the sign-out workflow when Sign Out is requested', async () => {
    await expectSagaWithStore(authSaga)
      .provide([
        [matchers.call.fn(requestLogout), undefined],
        [matchers.call.fn(loadHiddenPage), undefined],
        [matchers.call.fn(browser.assign), undefined],
      ])
      .call(requestLogout)
      .call(clearSession)
      .call(loadHiddenPage, PATHS.providerLogout, TIMING.logoutHiddenPageMs)
      .call([browser, browser.assign], '/')
      .dispatch(signOutRequested())
      .silentRun(50);
  });

  it('marks the sign-out as pending in the real state', async () => {
    const { storeState } = await expectSagaWithStore(authSaga)
      .provide([[matchers.call.fn(signOutWorker), undefined]])
      .dispatch(signOutRequested())
      .silentRun(50);
    expect(selectSignOutPending(storeState)).toBe(true);
  });

  it('keeps the provider logout page for exactly its time, then removes it', async () => {
    jest.useFakeTimers();
    try {
      const task = runSaga({ dispatch: () => undefined, getState: () => ({}) }, loadHiddenPage, PATHS.providerLogout, TIMING.logoutHiddenPageMs);
      const frame = (): Element | null => document.querySelector(`iframe[src="${PATHS.providerLogout}"]`);
      expect(frame()).not.toBeNull();
      await jest.advanceTimersByTimeAsync(TIMING.logoutHiddenPageMs - 1);
      expect(frame()).not.toBeNull();
      await jest.advanceTimersByTimeAsync(1);
      await task.toPromise();
      expect(frame()).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });
});
