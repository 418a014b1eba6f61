import { browser } from '../../../../src/client/common/browser';
import { clearSession } from '../../../../src/client/common/session';
import {
  appendHiddenFrame,
  authSaga,
  loadHiddenPage,
  removeFrame,
  requestLogout,
  signOutWorker,
} from '../../../../src/client/features/auth/authSaga';
import { selectSignOutPending, signOutRequested } from '../../../../src/client/features/auth/authSlice';
import { PATHS, TIMING } from '../../../../src/shared/constants';
import { expectSaga, expectSagaWithStore, matchers } from '../../utils/sagaHelpers';

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
    const frame = document.createElement('iframe');
    await expectSaga(loadHiddenPage, PATHS.providerLogout, TIMING.logoutHiddenPageMs)
      .provide([[matchers.call.fn(appendHiddenFrame), frame]])
      .delay(TIMING.logoutHiddenPageMs)
      .call(removeFrame, frame)
      .run({ timeout: TIMING.logoutHiddenPageMs + 500, silenceTimeout: true });
  });
});
