import { useEffect, type RefObject } from 'react';

/** Calls `onOutside` on a press anywhere outside `ref` while `active`. */
export function useOutsideClick(ref: RefObject<HTMLElement | null>, active: boolean, onOutside: () => void): void {
  useEffect(() => {
    if (!active) return undefined;
    const onPointerDown = (event: MouseEvent | TouchEvent): void => {
      if (ref.current && event.target instanceof Node && !ref.current.contains(event.target)) onOutside();
    };
    document.addEventListener('mousedown', onPointerDown);
    document.addEventListener('touchstart', onPointerDown);
    return () => {
      document.removeEventListener('mousedown', onPointerDown);
      document.removeEventListener('touchstart', onPointerDown);
    };
  }, [ref, active, onOutside]);
}
