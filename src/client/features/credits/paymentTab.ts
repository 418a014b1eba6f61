/**
 * The checkout opens in a new tab (part 1 section 4) once its link is known. A tab is never opened
 * before that (an empty tab that then closes on a failed call is worse than none); a browser that
 * blocks the late `window.open` leaves the dialog showing the link to open by hand.
 *
 * @returns whether the tab opened.
 */
export function openCheckoutTab(link: string): boolean {
  const url = new URL(link, window.location.href).toString();
  let tab: Window | null = null;
  try {
    tab = window.open(url, '_blank');
  } catch {
    tab = null;
  }
  if (!tab) return false;
  // The checkout must not reach back into the app through window.opener (cut before it loads).
  tab.opener = null;
  return true;
}
