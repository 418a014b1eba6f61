import { act, screen } from '@testing-library/react';
import { INSTALLATION_ERRORS, INSTALLATION_ID_KEY, LANDING, TIMING } from '../../../../src/shared/constants';
import { renderApp } from '../../utils/renderWithProviders';

describe('/github-success', () => {
  it('stores the installation id and goes to /app', async () => {
    const { router } = renderApp('/github-success?installation_id=123');
    expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBe('123');
    expect(router.state.location.pathname).toBe('/app');
  });

  describe('without an installation id', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('shows the Installation Error, then returns to / after 5 seconds', async () => {
      const { router } = renderApp('/github-success');
      expect(await screen.findByRole('heading', { name: INSTALLATION_ERRORS.title })).toBeInTheDocument();
      expect(screen.getByText(INSTALLATION_ERRORS.noIdInUrl)).toBeInTheDocument();
      expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBeNull();

      act(() => jest.advanceTimersByTime(TIMING.installationErrorRedirectMs - 100));
      expect(router.state.location.pathname).toBe('/github-success');

      act(() => jest.advanceTimersByTime(100));
      expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/');
    });
  });

  it('reports a storage failure', async () => {
    jest.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new Error('QuotaExceededError');
    });
    renderApp('/github-success?installation_id=5');
    expect(await screen.findByText(INSTALLATION_ERRORS.failedToComplete)).toBeInTheDocument();
  });
});
