/**
 * The checkout opens in a new tab (part 1 section 4). Browsers only allow `window.open` during the
 * click, and the link arrives after a call, so the tab is opened empty at the click and sent to the
 * link once it is known; if the browser refused the empty tab, the link is opened directly.
 */
export interface PaymentTab {
  show(link: string): void;
  /** Closes the empty tab when no link came. */
  discard(): void;
}

export function openPaymentTab(): PaymentTab {
  let tab: Window | null = null;
  try {
    tab = window.open('', '_blank');
    // The checkout must not reach back into the app through window.opener.
    if (tab) tab.opener = null;
  } catch {
    tab = null;
  }
  return {
    show(link) {
      const url = new URL(link, window.location.href).toString();
      if (tab && !tab.closed) tab.location.href = url;
      else window.open(url, '_blank', 'noopener,noreferrer');
    },
    discard() {
      if (tab && !tab.closed) tab.close();
    },
  };
}
