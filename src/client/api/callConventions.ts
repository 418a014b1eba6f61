import { CALL_ERRORS } from '../../shared/constants';
import { browser } from '../common/browser';
import { clearSession, getInstallationId, projectIdFromPath } from '../common/session';

/**
 * The call conventions of part 1 section 7, written once for every way the app calls the server (RTK
 * Query's base query and the event streams): the API's base, the Installation-Id and Project-Id headers,
 * and a 401, which ends the session.
 */

/** Absolute, because `new Request()` outside a browser (tests, workers) rejects relative URLs. */
export const API_BASE = `${globalThis.location?.origin ?? ''}/api`;

/** The project a call is about: the one given, else the one the address names (`/app/{projectId}/…`). */
export function callProjectId(projectId?: number | string | null): string | null {
  if (projectId !== undefined && projectId !== null) return String(projectId);
  return projectIdFromPath(window.location.pathname);
}

/**
 * Sets the headers every call carries on `headers`: Installation-Id (when signed in), Project-Id (the
 * given project, else the address's; one already set stays).
 */
export function setCallHeaders(headers: Headers, projectId?: number | string | null): Headers {
  const installationId = getInstallationId();
  if (installationId) headers.set('Installation-Id', installationId);
  const project = callProjectId(projectId);
  if (project && !headers.has('Project-Id')) headers.set('Project-Id', project);
  return headers;
}

/** A 401: the session is over (session storage cleared, browser sent to /). */
export function endSession(): void {
  clearSession();
  browser.assign('/');
}

/** Text for a non-OK answer (part 1 section 8): `detail` or `message`, else 'HTTP {status}: {statusText or body}'. */
export async function httpErrorText(response: Response): Promise<string> {
  const body = await response.text().catch(() => '');
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      for (const field of ['detail', 'message'] as const) {
        const value = (parsed as Record<string, unknown>)[field];
        if (typeof value === 'string' && value.trim()) return value;
      }
    }
  } catch {
    // Not JSON: fall through to the status line.
  }
  return CALL_ERRORS.http(response.status, response.statusText || body);
}
