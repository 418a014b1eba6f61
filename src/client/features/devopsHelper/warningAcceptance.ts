import { DEVOPS_HELPER } from '../../../shared/constants';

/** Whether the warning was accepted on this page (local storage; unavailable storage reads as not accepted). */
export function isWarningAccepted(): boolean {
  try {
    return window.localStorage.getItem(DEVOPS_HELPER.acceptanceStorageKey) === 'true';
  } catch {
    return false;
  }
}

export function acceptWarning(): void {
  try {
    window.localStorage.setItem(DEVOPS_HELPER.acceptanceStorageKey, 'true');
  } catch {
    // Storage unavailable: the acceptance lasts only as long as the component.
  }
}

/**
 * Clears the acceptance when the page unloads (part 2 section 2), so a new visit shows the notice
 * again. Returns the listener's removal.
 */
export function clearAcceptanceOnUnload(): () => void {
  const clear = (): void => {
    try {
      window.localStorage.removeItem(DEVOPS_HELPER.acceptanceStorageKey);
    } catch {
      // Nothing to clear.
    }
  };
  window.addEventListener('beforeunload', clear);
  window.addEventListener('pagehide', clear);
  return () => {
    window.removeEventListener('beforeunload', clear);
    window.removeEventListener('pagehide', clear);
  };
}
