import { createElement, lazy, type ComponentType, type ReactElement } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router-dom';
import { NotFoundPage, RouteErrorPage } from '../common/components/ErrorPages';
import { RedirectIfSignedIn, RequireInstallation } from './guards';
import { RootLayout } from './RootLayout';

/** A page in its own chunk: rendered at once when `preload` has loaded it, else through `lazy()` (Suspense). */
type LazyPage = ComponentType & { preload(): Promise<void> };

/** `lazy()` for a named export; each call site names its chunk. */
function lazyNamed<M, K extends keyof M>(load: () => Promise<M>, name: K): LazyPage {
  let loaded: ComponentType | null = null;
  const take = (module: M): ComponentType => (loaded = module[name] as ComponentType);
  const Lazy = lazy(() => load().then((module) => ({ default: take(module) })));
  const Page = (): ReactElement => createElement(loaded ?? Lazy);
  return Object.assign(Page, { preload: () => load().then(take).then(() => undefined) });
}

/**
 * The landing page: its own chunk, which client/index.tsx loads before the first render when the
 * server sent the page prerendered (so React replaces it with the same page, never with a spinner).
 */
export const LandingPage = lazyNamed(() => import(/* webpackChunkName: "landing" */ '../features/marketing/LandingPage'), 'LandingPage');
const publicPages = () => import(/* webpackChunkName: "public" */ '../features/marketing/PublicPages');
const PricingPage = lazyNamed(publicPages, 'PricingPage');
const TermsPage = lazyNamed(publicPages, 'TermsPage');
const PrivacyPage = lazyNamed(publicPages, 'PrivacyPage');
const RefundPolicyPage = lazyNamed(publicPages, 'RefundPolicyPage');
const GithubSuccessPage = lazyNamed(() => import(/* webpackChunkName: "auth" */ '../features/auth/GithubSuccessPage'), 'GithubSuccessPage');
const SignInPage = lazyNamed(() => import(/* webpackChunkName: "auth" */ '../features/auth/SignInPage'), 'SignInPage');
const PaymentSuccessPage = lazyNamed(() => import(/* webpackChunkName: "payment" */ '../features/credits/PaymentSuccessPage'), 'PaymentSuccessPage');
const ProjectsHome = lazyNamed(() => import(/* webpackChunkName: "projects" */ './ProjectsHomeRoute'), 'ProjectsHomeRoute');
const StagedWorkflowPage = lazyNamed(() => import(/* webpackChunkName: "workspace" */ '../features/stages/StagedWorkflowPage'), 'StagedWorkflowPage');
const ProjectHomePage = lazyNamed(() => import(/* webpackChunkName: "project-home" */ '../features/projectHome/ProjectHomePage'), 'ProjectHomePage');
const DevopsHelperPage = lazyNamed(() => import(/* webpackChunkName: "devops-helper" */ '../features/devopsHelper/DevopsHelperPage'), 'DevopsHelperPage');
const CostsPage = lazyNamed(() => import(/* webpackChunkName: "costs" */ '../features/costs/CostsPage'), 'CostsPage');

/**
 * Every route of both documents (part 1 and part 2, section 2). Each area is its own chunk; the
 * guards run before a guarded page's chunk is requested.
 */
export const appRoutes: RouteObject[] = [
  {
    path: '/',
    element: <RootLayout />,
    errorElement: <RouteErrorPage />,
    children: [
      {
        index: true,
        element: (
          <RedirectIfSignedIn>
            <LandingPage />
          </RedirectIfSignedIn>
        ),
      },
      { path: 'terms', element: <TermsPage /> },
      { path: 'privacy', element: <PrivacyPage /> },
      { path: 'refund-policy', element: <RefundPolicyPage /> },
      { path: 'pricing', element: <PricingPage /> },
      { path: 'github-success', element: <GithubSuccessPage /> },
      { path: 'signin', element: <SignInPage /> },
      { path: 'credits/success', element: <PaymentSuccessPage /> },
      { path: 'payment-success', element: <PaymentSuccessPage /> },
      {
        path: 'app',
        element: <RequireInstallation />,
        children: [
          { index: true, element: <ProjectsHome /> },
          {
            path: ':projectId',
            children: [
              { index: true, element: <StagedWorkflowPage /> },
              { path: 'home/devops-helper', element: <DevopsHelperPage /> },
              { path: 'home/*', element: <ProjectHomePage /> },
              { path: 'costs', element: <CostsPage /> },
            ],
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

export function createAppRouter(): ReturnType<typeof createBrowserRouter> {
  return createBrowserRouter(appRoutes);
}
