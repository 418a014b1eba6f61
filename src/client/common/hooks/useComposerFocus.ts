import { useCallback, useEffect, useRef, type RefObject } from 'react';

/**
 * A chat's message box is disabled while the reply streams, which drops the focus to the page: the
 * person had to click back in after every message. Call `sent()` when a message goes; once the box is
 * enabled again, it takes the focus back.
 */
export function useComposerFocus<T extends HTMLElement>(busy: boolean): { ref: RefObject<T | null>; sent: () => void } {
  const ref = useRef<T>(null);
  const pending = useRef(false);
  useEffect(() => {
    if (busy || !pending.current) return;
    pending.current = false;
    ref.current?.focus();
  }, [busy]);
  const sent = useCallback(() => {
    pending.current = true;
  }, []);
  return { ref, sent };
}
