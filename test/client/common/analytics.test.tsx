import { screen } from '@testing-library/react';
import { getAnalyticsSessionId, getAnonymousUserId, track, trackPageView } from '../../../src/client/common/analytics';
import { ANALYTICS_SESSION_ID_KEY, ANONYMOUS_USER_ID_KEY, LANDING } from '../../../src/shared/constants';
import { renderApp } from '../utils/renderWithProviders';
import { server } from '../utils/server';

describe('analytics', () => {
  it('keeps a stable anonymous user id (local storage) and session id (session storage)', () => {
    const userId = getAnonymousUserId();
    const sessionId = getAnalyticsSessionId();
    expect(userId).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(localStorage.getItem(ANONYMOUS_USER_ID_KEY)).toBe(userId);
    expect(sessionStorage.getItem(ANALYTICS_SESSION_ID_KEY)).toBe(sessionId);
    expect(getAnonymousUserId()).toBe(userId);
    expect(getAnalyticsSessionId()).toBe(sessionId);
  });

  it('sends nothing anywhere', () => {
    const requests = jest.fn();
    server.events.on('request:start', requests);
    const beacon = jest.fn();
    Object.defineProperty(navigator, 'sendBeacon', { value: beacon, configurable: true });
    track('button_hover', { button: 'get-started' });
    trackPageView('/pricing');
    expect(requests).not.toHaveBeenCalled();
    expect(beacon).not.toHaveBeenCalled();
    server.events.removeAllListeners();
  });

  it('records a page view on route changes (ids exist once the app has rendered)', async () => {
    renderApp('/');
    await screen.findByText(LANDING.tagline);
    expect(sessionStorage.getItem(ANALYTICS_SESSION_ID_KEY)).toBeTruthy();
    expect(localStorage.getItem(ANONYMOUS_USER_ID_KEY)).toBeTruthy();
  });
});
