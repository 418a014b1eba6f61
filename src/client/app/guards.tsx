import type { ReactElement, ReactNode } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { isSignedIn } from '../common/session';

/** /app/*: without a stored installation id, back to / (part 2 section 2). */
export function RequireInstallation(): ReactElement {
  return isSignedIn() ? <Outlet /> : <Navigate to="/" replace />;
}

/**
 * /: a signed-in visitor goes on to /app with history replaced. /github-success is its own route, so
 * the exception the spec makes for it holds by construction.
 */
export function RedirectIfSignedIn({ children }: { children: ReactNode }): ReactElement {
  return isSignedIn() ? <Navigate to="/app" replace /> : <>{children}</>;
}
