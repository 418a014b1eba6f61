import { Suspense, useEffect, type ReactElement } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { PageSpinner } from '../common/components/Spinner';
import { trackPageView } from '../common/analytics';

/** Wraps every route: page views on each route change, and the fallback while a route's chunk loads. */
export function RootLayout(): ReactElement {
  const { pathname } = useLocation();
  useEffect(() => {
    trackPageView(pathname);
  }, [pathname]);
  return (
    <Suspense fallback={<PageSpinner />}>
      <Outlet />
    </Suspense>
  );
}
