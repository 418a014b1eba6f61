/**
 * The tab a key moves to in a horizontal tab list (the WAI-ARIA tabs pattern, automatic activation):
 * ArrowRight and ArrowLeft to the next and previous (wrapping), Home and End to the first and last.
 * Null for any other key, so the caller leaves it to the browser.
 */
export function tabKeyTarget<T>(key: string, tabs: readonly T[], current: T): T | null {
  if (tabs.length === 0) return null;
  const index = Math.max(0, tabs.indexOf(current));
  switch (key) {
    case 'ArrowRight':
      return tabs[(index + 1) % tabs.length]!;
    case 'ArrowLeft':
      return tabs[(index - 1 + tabs.length) % tabs.length]!;
    case 'Home':
      return tabs[0]!;
    case 'End':
      return tabs[tabs.length - 1]!;
    default:
      return null;
  }
}
