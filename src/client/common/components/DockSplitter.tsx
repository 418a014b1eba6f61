import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactElement } from 'react';
import styled from 'styled-components';

/** The dock's height in pixels: bounded, and remembered per `storageKey` in this browser. */
export interface DockHeight {
  height: number;
  min: number;
  max: number;
  set(height: number): void;
}

const MIN = 160;
/** What the dock may take of the window at most: the rest keeps the step that waits and its buttons. */
const MAX_SHARE = 0.7;
const maxFor = (viewport: number): number => Math.max(MIN, Math.floor(viewport * MAX_SHARE));
const clamp = (n: number, viewport: number): number => Math.round(Math.min(maxFor(viewport), Math.max(MIN, n)));

function stored(key: string): number | undefined {
  try {
    const n = Number(window.localStorage.getItem(key));
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The docked panel's height, starting from what the person chose last time (else `initial`) and kept within the window. */
export function useDockHeight(storageKey: string, initial: (viewport: number) => number): DockHeight {
  const [viewport, setViewport] = useState(() => window.innerHeight);
  const [chosen, setChosen] = useState(() => stored(storageKey) ?? initial(window.innerHeight));
  useEffect(() => {
    const onResize = (): void => setViewport(window.innerHeight);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  const set = useCallback(
    (height: number) => {
      const next = clamp(height, window.innerHeight);
      setChosen(next);
      try {
        window.localStorage.setItem(storageKey, String(next));
      } catch {
        // Storage refused (private mode, quota): the height still holds for this page.
      }
    },
    [storageKey],
  );
  return { height: clamp(chosen, viewport), min: MIN, max: maxFor(viewport), set };
}

const STEP = 24;

/**
 * A horizontal splitter on top of a docked panel (the WAI-ARIA window splitter pattern): drag it, or focus
 * it and use the arrow keys (Page Up/Down for larger moves, Home and End for the bounds); its value is the
 * panel's height in pixels.
 */
export function DockSplitter({ dock, label, controls }: { dock: DockHeight; label: string; controls: string }): ReactElement {
  const drag = useRef<{ startY: number; startHeight: number } | null>(null);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const moves: Record<string, number> = { ArrowUp: STEP, ArrowDown: -STEP, PageUp: STEP * 5, PageDown: -STEP * 5, Home: -Infinity, End: Infinity };
    const move = moves[e.key];
    if (move === undefined) return;
    e.preventDefault();
    dock.set(move === Infinity ? dock.max : move === -Infinity ? dock.min : dock.height + move);
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    drag.current = { startY: e.clientY, startHeight: dock.height };
    e.currentTarget.setPointerCapture?.(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    if (drag.current) dock.set(drag.current.startHeight + drag.current.startY - e.clientY);
  };
  const onPointerUp = (): void => {
    drag.current = null;
  };
  return (
    <Handle
      role="separator"
      aria-orientation="horizontal"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={dock.height}
      aria-valuemin={dock.min}
      aria-valuemax={dock.max}
      aria-valuetext={`${dock.height} pixels high`}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
    />
  );
}

const Handle = styled.div`
  height: 12px;
  cursor: row-resize;
  touch-action: none;
  display: flex;
  align-items: center;
  justify-content: center;
  background: ${({ theme }) => theme.colors.surface};
  &::before {
    content: '';
    width: 48px;
    height: 4px;
    border-radius: 2px;
    background: ${({ theme }) => theme.colors.border};
  }
  &:focus-visible {
    outline: 2px solid ${({ theme }) => theme.colors.focus};
    outline-offset: -2px;
  }
`;
