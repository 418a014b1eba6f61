import { ANALYTICS_SESSION_ID_KEY, ANONYMOUS_USER_ID_KEY } from '../../shared/constants';

/**
 * Analytics keep a random anonymous user id (local storage) and a session id (session storage), as
 * part 1 section 3 describes; the calls themselves do nothing: no event leaves the browser.
 */

function randomId(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function storedId(storage: Storage | undefined, key: string): string {
  try {
    const existing = storage?.getItem(key);
    if (existing) return existing;
    const id = randomId();
    storage?.setItem(key, id);
    return id;
  } catch {
    return randomId();
  }
}

export function getAnonymousUserId(): string {
  return storedId(globalThis.localStorage, ANONYMOUS_USER_ID_KEY);
}

export function getAnalyticsSessionId(): string {
  return storedId(globalThis.sessionStorage, ANALYTICS_SESSION_ID_KEY);
}

export type AnalyticsProperties = Record<string, string | number | boolean | null>;

/** Records an event. Deliberately a no-op beyond keeping the ids: there is no analytics backend. */
export function track(_event: string, _properties: AnalyticsProperties = {}): void {
  getAnonymousUserId();
  getAnalyticsSessionId();
}

/** Called on every route change (part 2 section 2). */
export function trackPageView(path: string): void {
  track('page_view', { path });
}
