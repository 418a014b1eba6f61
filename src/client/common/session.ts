import { INSTALLATION_ID_KEY } from '../../shared/constants';

/**
 * The installation id in session storage is the only sign-in marker the client keeps (part 1
 * section 6); the real credential is the server's HttpOnly session cookie.
 */
export function getInstallationId(): string | null {
  try {
    return window.sessionStorage.getItem(INSTALLATION_ID_KEY);
  } catch {
    return null;
  }
}

/** Stores the id; throws when storage is unavailable, so callers can report it. */
export function setInstallationId(id: string): void {
  window.sessionStorage.setItem(INSTALLATION_ID_KEY, id);
}

export function clearInstallationId(): void {
  try {
    window.sessionStorage.removeItem(INSTALLATION_ID_KEY);
  } catch {
    // Storage unavailable: there is nothing to clear.
  }
}

/** Sign-out and a 401 clear all of session storage, as the spec says, not only the id. */
export function clearSession(): void {
  try {
    window.sessionStorage.clear();
  } catch {
    // Storage unavailable: there is nothing to clear.
  }
}

export function isSignedIn(): boolean {
  return Boolean(getInstallationId());
}

/** `/app/{projectId}/...` names a project; its id travels as the Project-Id header. */
export function projectIdFromPath(pathname: string): string | null {
  const match = /^\/app\/(\d+)(?:\/|$)/.exec(pathname);
  return match ? match[1] : null;
}
