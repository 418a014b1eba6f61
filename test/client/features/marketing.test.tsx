import { screen, waitFor, within } from '@testing-library/react';
import {
  DEMO_VIDEOS,
  EXAMPLE_COSTS,
  INSTALLATION_ID_KEY,
  LANDING,
  LANDING_PAGE,
  LANDING_TEXT,
  LEGAL,
  LEGAL_PAGES,
  PATHS,
  PRICING_TEXT,
} from '../../../src/shared/constants';
import { activityDb } from '../utils/activityServer';
import { assignMock } from '../utils/browser';
import { demoPlayLabel, NO_RECORDING } from '../../../src/client/features/marketing/DemoVideoModal';
import { renderApp } from '../utils/renderWithProviders';

describe('landing page', () => {
  it('shows the hero, the trailer with its three sources, every section, the six cards and the footer', async () => {
    activityDb.publicConfig.support_email = 'help@example.com';
    renderApp('/');
    // The first test also waits for the lazy landing chunk to compile.
    expect(await screen.findByText(LANDING.tagline, undefined, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByText(LANDING_TEXT.quote)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'DevOps Agents' })).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('button', { name: LANDING.pricing })).toBeInTheDocument();

    const video = screen.getByLabelText(LANDING_TEXT.trailerLabel) as HTMLVideoElement;
    expect(video.autoplay).toBe(true);
    expect(video.loop).toBe(true);
    expect(video.muted).toBe(true);
    const sources = Array.from(video.querySelectorAll('source')).map((s) => s.getAttribute('src'));
    expect(sources).toEqual(expect.arrayContaining([LANDING_PAGE.trailer.mp4, LANDING_PAGE.trailer.webm]));
    expect(screen.getByAltText(LANDING_TEXT.trailerFallbackAlt)).toHaveAttribute('src', LANDING_PAGE.trailer.gifFallback);

    for (const heading of [
      LANDING_PAGE.sections.noVibeCoding,
      LANDING_PAGE.sections.noInvisibleEfforts,
      LANDING_PAGE.sections.connectRepository,
      LANDING_PAGE.sections.watchUsDeploy,
      LANDING_PAGE.sections.finalCallToAction,
    ]) {
      expect(screen.getByRole('heading', { name: heading })).toBeInTheDocument();
    }
    expect(screen.getByRole('link', { name: LANDING_PAGE.sections.seeMore })).toHaveAttribute('href', '#connect-repository');
    expect(screen.getByText(LANDING_PAGE.sections.approvedOverlayTitle)).toBeInTheDocument();
    expect(screen.getByText(LANDING_PAGE.sections.approvedOverlaySubtitle)).toBeInTheDocument();
    const repository = screen.getByRole('region', { name: LANDING_PAGE.sections.connectRepository });
    for (const card of LANDING_PAGE.repositoryCards) expect(within(repository).getByRole('heading', { name: card })).toBeInTheDocument();
    expect(within(repository).getAllByRole('heading', { level: 3 })).toHaveLength(6);

    const footer = screen.getByRole('navigation', { name: 'Footer' });
    expect(within(footer).getAllByRole('button').map((b) => b.textContent)).toEqual([...LANDING_PAGE.footer]);
    expect(await screen.findByRole('link', { name: 'help@example.com' })).toHaveAttribute('href', 'mailto:help@example.com');
  });

  it('the scroll arrow scrolls to the trailer', async () => {
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    const { user } = renderApp('/');
    await user.click(await screen.findByRole('button', { name: LANDING_TEXT.scrollToTrailer }));
    expect(scrolled[0]?.id).toBe('trailer');
  });

  it('a demo opens a player that closes by the backdrop, the close button or Escape, not by clicks inside; focus returns to its card', async () => {
    const { user } = renderApp('/');
    const thumb = await screen.findByRole('button', { name: demoPlayLabel(DEMO_VIDEOS[0]!) });
    await user.click(thumb);
    let dialog = screen.getByRole('dialog', { name: NO_RECORDING.dialogTitle(DEMO_VIDEOS[0]!.title) });
    await user.click(dialog);
    await user.click(within(dialog).getByTitle(NO_RECORDING.dialogTitle(DEMO_VIDEOS[0]!.title)));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(thumb).toHaveFocus();
    await user.click(thumb);
    dialog = screen.getByRole('dialog', { name: NO_RECORDING.dialogTitle(DEMO_VIDEOS[0]!.title) });
    await user.click(within(dialog).getByRole('button', { name: LANDING_TEXT.closeVideo }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(thumb).toHaveFocus();

    await user.click(screen.getByRole('button', { name: demoPlayLabel(DEMO_VIDEOS[2]!) }));
    expect(screen.getByRole('dialog', { name: NO_RECORDING.dialogTitle(DEMO_VIDEOS[2]!.title) })).toBeInTheDocument();
    await user.click(screen.getByTestId('video-backdrop'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('the demo cards do not pretend: without a recording they show no job length and say the trailer plays', async () => {
    renderApp('/');
    const section = await screen.findByRole('region', { name: LANDING_PAGE.sections.watchUsDeploy });
    for (const video of DEMO_VIDEOS.filter((v) => !v.videoId)) {
      const card = within(section).getByRole('button', { name: demoPlayLabel(video) });
      expect(card).toHaveTextContent(NO_RECORDING.badge);
      expect(card).not.toHaveTextContent(video.duration);
    }
    expect(within(section).getAllByText(NO_RECORDING.note).length).toBe(DEMO_VIDEOS.filter((v) => !v.videoId).length);
  });

  it('Start Building and Get Started clear a stale id and send the browser to the login endpoint', async () => {
    const { user } = renderApp('/');
    await screen.findByText(LANDING.tagline);
    sessionStorage.setItem(INSTALLATION_ID_KEY, 'stale');
    await user.click(screen.getByRole('button', { name: LANDING_PAGE.sections.startBuilding }));
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBeNull();
    expect(assignMock()).toHaveBeenCalledWith(PATHS.githubLogin);
    await user.click(screen.getAllByRole('button', { name: LANDING.getStarted })[0]!);
    expect(assignMock()).toHaveBeenCalledTimes(2);
  });

  it('sets the page title and runs its 1-second timer', async () => {
    jest.useFakeTimers();
    try {
      renderApp('/', { fakeTimers: true });
      await screen.findByText(LANDING.tagline);
      expect(document.title).toContain('DevOps Agents');
      jest.advanceTimersByTime(LANDING_PAGE.loadTimerMs);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('pricing page', () => {
  it('shows the rates the server configures, the example costs, the ticks, Get Started and the legal links', async () => {
    const { user, router } = renderApp('/pricing');
    expect(await screen.findByRole('heading', { name: PRICING_TEXT.currentRates })).toBeInTheDocument();
    expect(await screen.findByTestId('input-rate')).toHaveTextContent('$5 per million tokens');
    expect(screen.getByTestId('output-rate')).toHaveTextContent('$20 per million tokens');
    expect(document.title).toBe('DevOps Agents - Pricing Page');
    const table = screen.getByRole('table');
    expect(within(table).getAllByRole('row')).toHaveLength(EXAMPLE_COSTS.length + 1);
    expect(within(table).getByText('VPS with PostgreSQL')).toBeInTheDocument();
    for (const tick of PRICING_TEXT.quickInfo) expect(screen.getByText(`✓ ${tick}`)).toBeInTheDocument();
    for (const page of Object.values(LEGAL_PAGES)) expect(screen.getByRole('button', { name: page.title })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: LANDING.getStarted }));
    expect(router.state.location.pathname).toBe('/');
  });

  it('follows the configuration: regular pricing shows one rate', async () => {
    activityDb.publicConfig.rates = { mode: 'regular', input_per_million: 30, output_per_million: 30 };
    renderApp('/pricing');
    expect(await screen.findByTestId('regular-rate')).toHaveTextContent('$30 per million tokens');
    expect(screen.queryByTestId('input-rate')).not.toBeInTheDocument();
  });
});

describe('legal pages', () => {
  it.each([
    ['/terms', LEGAL_PAGES.terms, 'DevOps Agents - Terms of Service'],
    ['/privacy', LEGAL_PAGES.privacy, 'DevOps Agents - Privacy Policy'],
    ['/refund-policy', LEGAL_PAGES.refundPolicy, 'DevOps Agents - Refund Policy'],
  ])('%s has its title, the date, its points with the support address, Back to Home and accept', async (path, page, title) => {
    activityDb.publicConfig.support_email = 'help@example.com';
    const { user, router } = renderApp(path);
    expect(await screen.findByRole('heading', { name: page.title })).toBeInTheDocument();
    expect(document.title).toBe(title);
    expect(screen.getByText(LEGAL.lastUpdated)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText(/help@example\.com/)).toBeInTheDocument());
    for (const point of page.points('help@example.com')) expect(screen.getByText(point)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: page.accept }));
    expect(router.state.location.pathname).toBe('/');
  });

  it('the terms carry the points of part 2: experimental, cloud costs, no refunds, training, 18, Delaware, chargebacks', () => {
    const text = LEGAL_PAGES.terms.points('x@y').join(' ');
    for (const needle of ['experimental', 'cloud resources', 'no refunds', 'train AI models', '18', 'Delaware', 'arbitration', 'class action', 'end of the current billing period', 'Chargebacks', '5 business days']) {
      expect(text).toContain(needle);
    }
  });

  it('Back to Home returns to the landing page', async () => {
    const { user } = renderApp('/terms');
    await user.click(await screen.findByRole('button', { name: `← ${LEGAL.backToHome}` }));
    expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
  });
});
