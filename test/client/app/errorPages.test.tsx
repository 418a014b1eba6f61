import { screen } from '@testing-library/react';
import type { ReactElement } from 'react';
import { NotFoundPage, RouteErrorPage } from '../../../src/client/common/components/ErrorPages';
import { INSTALLATION_ID_KEY, PAGES } from '../../../src/shared/constants';
import { renderApp, renderWithProviders } from '../utils/renderWithProviders';

function Broken(): ReactElement {
  throw new Error('render failed');
}

describe('Page Not Found and the route error page', () => {
  it.each(['/nowhere', '/app/3/unknown/place', '/app/3/home-ish'])('%s shows Page Not Found', async (path) => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    renderApp(path);
    expect(await screen.findByRole('heading', { name: PAGES.pageNotFound })).toBeInTheDocument();
  });

  it('Return to Projects goes to /app', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const { user, router } = renderApp('/nowhere');
    await user.click(await screen.findByRole('button', { name: PAGES.returnToProjects }));
    expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app');
  });

  it("a route that throws shows 'Something went wrong' with Return to Projects", async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { user, router } = renderWithProviders(<Broken />, {
      route: '/app/3',
      path: '/app/3',
      errorElement: <RouteErrorPage />,
      routes: [{ path: '/app', element: <p>Projects list</p> }, { path: '*', element: <NotFoundPage /> }],
    });
    expect(await screen.findByRole('heading', { name: PAGES.somethingWentWrong })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: PAGES.returnToProjects }));
    expect(await screen.findByText('Projects list')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app');
  });
});
