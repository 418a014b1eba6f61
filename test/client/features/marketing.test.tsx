import { screen } from '@testing-library/react';
import { INSTALLATION_ID_KEY, LANDING, PATHS } from '../../../src/shared/constants';
import { assignMock } from '../utils/browser';
import { renderApp } from '../utils/renderWithProviders';

describe('landing page', () => {
  it('shows the product name, the tagline, Pricing and Get Started', async () => {
    renderApp('/');
    expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'DevOps Agents' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: LANDING.pricing })).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: LANDING.getStarted }).length).toBeGreaterThan(0);
  });

  it('Get Started clears a stale id and sends the browser to the login endpoint', async () => {
    const { user } = renderApp('/');
    await screen.findByText(LANDING.tagline);
    // Stored after the guard ran, as a stale tab would have it.
    sessionStorage.setItem(INSTALLATION_ID_KEY, 'stale');
    await user.click(screen.getAllByRole('button', { name: LANDING.getStarted })[0]);
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBeNull();
    expect(assignMock()).toHaveBeenCalledWith(PATHS.githubLogin);
  });

  it('Pricing opens the pricing page, which leads back home', async () => {
    const { user, router } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: LANDING.pricing }));
    expect(await screen.findByRole('heading', { name: 'Pricing' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/pricing');
    await user.click(screen.getByRole('button', { name: 'Back to Home' }));
    expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
  });

  it.each([
    ['/terms', 'Terms of Service', 'DevOps Agents - Terms of Service'],
    ['/privacy', 'Privacy Policy', 'DevOps Agents - Privacy Policy'],
    ['/refund-policy', 'Refund Policy', 'DevOps Agents - Refund Policy'],
  ])('%s is a real route with its title and an honest placeholder', async (path, heading, title) => {
    renderApp(path);
    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(screen.getByText(`${heading} is coming in a later release.`)).toBeInTheDocument();
    expect(document.title).toBe(title);
  });

  // The payment success page (both paths) is tested in credits/paymentSuccess.test.tsx.
});
