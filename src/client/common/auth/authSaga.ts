import { call, delay, put, takeLeading } from 'redux-saga/effects';
import { PATHS, TIMING } from '../../../shared/constants';
import { browser } from '../browser';
import { clearSession } from '../session';
import { authApi } from './authApi';
import { signOutRequested } from './authSlice';

/** Adds an invisible iframe; the provider's logout page ends its own session inside it. */
export function appendHiddenFrame(src: string): HTMLIFrameElement {
  const frame = document.createElement('iframe');
  frame.src = src;
  frame.title = 'Sign out';
  frame.hidden = true;
  frame.setAttribute('aria-hidden', 'true');
  document.body.appendChild(frame);
  return frame;
}

export function removeFrame(frame: HTMLIFrameElement): void {
  frame.remove();
}

/** Loads `src` in a hidden iframe for `ms` (part 1 section 9: 1 second), then removes it. */
export function* loadHiddenPage(src: string, ms: number): Generator {
  const frame = (yield call(appendHiddenFrame, src)) as HTMLIFrameElement;
  try {
    yield delay(ms);
  } finally {
    yield call(removeFrame, frame);
  }
}

/** POST /api/github/logout through RTK Query; resolves whatever the answer, the sign-out goes on. */
export function* requestLogout(): Generator {
  const request = (yield put(authApi.endpoints.logout.initiate())) as LogoutRequest;
  // The request settles with `{ data }` or `{ error }`; it never rejects.
  yield call(() => request);
  request.reset();
}

type LogoutRequest = ReturnType<ReturnType<typeof authApi.endpoints.logout.initiate>>;

/**
 * Sign Out (part 1 section 7): end the server session, clear session storage, let the provider's
 * logout page load in a hidden frame for 1 s, then go to /. A failed logout call still signs the
 * browser out: the marker is gone and the cookie is useless without it.
 */
export function* signOutWorker(): Generator {
  yield call(requestLogout);
  yield call(clearSession);
  yield call(loadHiddenPage, PATHS.providerLogout, TIMING.logoutHiddenPageMs);
  yield call([browser, browser.assign], '/');
}

export function* authSaga(): Generator {
  yield takeLeading(signOutRequested.type, signOutWorker);
}
