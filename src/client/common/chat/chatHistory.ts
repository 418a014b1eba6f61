import type { ChatRole } from '../../../shared/constants';

interface Said {
  role: ChatRole;
  content: string;
}

/** The same message, live and stored: an assistant reply may still be streaming (one is the other's start). */
function same(stored: Said, live: Said): boolean {
  if (stored.role !== live.role) return false;
  const a = stored.content.trim();
  const b = live.content.trim();
  return a === b || (live.role === 'assistant' && (a.startsWith(b) || b.startsWith(a)));
}

/**
 * The stored messages a reloaded chat shows before what this page already said in it: all of them but
 * the tail that a turn this page started already shows (its message was stored when the turn began, and
 * its reply when it ended), so a message sent before the history arrived shows once.
 */
export function historyBefore<M extends Said>(stored: readonly M[], live: readonly Said[]): M[] {
  for (let k = Math.min(stored.length, live.length); k > 0; k -= 1) {
    const tail = stored.slice(stored.length - k);
    if (tail.every((message, i) => same(message, live[i]!))) return stored.slice(0, stored.length - k);
  }
  return [...stored];
}
