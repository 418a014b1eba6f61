import { useEffect, useId, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { logError } from '../../log';
import { theme } from '../../theme';

/** Below this scale a diagram's labels get too small to read: the diagram scrolls instead. */
const MIN_SCALE = 0.8;

/** mermaid drawn in the app's colours (its own 'dark' theme puts the diagram in a grey box). */
const MERMAID_THEME = {
  darkMode: true,
  background: theme.colors.background,
  fontFamily: theme.fonts.body,
  fontSize: '15px',
  primaryColor: theme.colors.surfaceRaised,
  primaryTextColor: theme.colors.text,
  primaryBorderColor: theme.colors.primary,
  secondaryColor: theme.colors.surfaceHover,
  tertiaryColor: theme.colors.surface,
  lineColor: theme.colors.textMuted,
  textColor: theme.colors.text,
  mainBkg: theme.colors.surfaceRaised,
  nodeBorder: theme.colors.primary,
  clusterBkg: theme.colors.surface,
  clusterBorder: theme.colors.border,
  edgeLabelBackground: theme.colors.surface,
  titleColor: theme.colors.text,
} as const;

type MermaidApi = (typeof import('mermaid'))['default'];

let mermaidPromise: Promise<MermaidApi> | null = null;

/**
 * mermaid (and d3 behind it) in lazy chunks, initialised once, with its strict security level.
 *
 * mermaid's core statically imports its config/sanitiser chunk (with DOMPurify and khroma), which makes
 * one 650 KiB chunk, past the performance budget of webpack.config.ts. Importing that internal chunk
 * from a second split point makes webpack's splitChunks move it into a chunk of its own (a module
 * shared by two async chunks), so both stay under the budget; both load in parallel. If a mermaid
 * upgrade renames the file, the build fails on the missing module instead of silently growing.
 */
function loadMermaid(): Promise<MermaidApi> {
  mermaidPromise ??= Promise.all([
    import(/* webpackChunkName: "mermaid-config" */ 'mermaid/dist/chunks/mermaid.core/chunk-DU6HZSFF.mjs'),
    import(/* webpackChunkName: "mermaid" */ 'mermaid'),
  ]).then(([, { default: mermaid }]) => {
    mermaid.initialize({ startOnLoad: false, theme: 'base', themeVariables: MERMAID_THEME, securityLevel: 'strict' });
    return mermaid;
  });
  // A failed load can be tried again on the next diagram.
  mermaidPromise.catch(() => {
    mermaidPromise = null;
  });
  return mermaidPromise;
}

/**
 * A ```mermaid block drawn as a diagram (the architecture plan's). Until it is drawn, and when the
 * source does not parse, the source itself shows, so nothing of the plan is ever hidden.
 */
export function MermaidDiagram({ source }: { source: string }): ReactElement {
  const id = `mermaid-${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  // The outcome is kept with the source it is for, so a new source shows as text until it is drawn.
  const [drawn, setDrawn] = useState<{ source: string; svg: string | null } | null>(null);
  const svg = drawn?.source === source ? drawn.svg : null;
  const failed = drawn?.source === source && drawn.svg === null;
  const figureRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    loadMermaid()
      .then((mermaid) => mermaid.render(id, source))
      .then((result) => {
        if (live) setDrawn({ source, svg: result.svg });
      })
      .catch((error: unknown) => {
        logError('mermaid', error);
        if (live) setDrawn({ source, svg: null });
      });
    return () => {
      live = false;
    };
  }, [id, source]);

  useEffect(() => {
    // mermaid's output with securityLevel 'strict' is sanitised by its own DOMPurify pass.
    const figure = figureRef.current;
    if (!figure || svg === null) return;
    figure.innerHTML = svg;
    // A wide diagram fits the column only down to MIN_SCALE; past that it keeps readable labels and scrolls.
    const drawn = figure.querySelector('svg');
    const naturalWidth = drawn?.viewBox.baseVal?.width ?? 0;
    if (drawn && naturalWidth > 0) drawn.style.minWidth = `${Math.round(naturalWidth * MIN_SCALE)}px`;
  }, [svg]);

  return (
    // Focusable: a diagram wider than its column scrolls, and a keyboard must be able to scroll it.
    <Figure role="figure" aria-label="Diagram" aria-busy={svg === null && !failed} tabIndex={0}>
      {svg !== null ? <div ref={figureRef} /> : <pre><code>{source}</code></pre>}
      {failed && <Note>The diagram could not be drawn; its source is shown.</Note>}
    </Figure>
  );
}

const Figure = styled.figure`
  margin: 0 0 ${({ theme }) => theme.space(3)};
  overflow-x: auto;
  svg { max-width: 100%; height: auto; }
`;

const Note = styled.figcaption`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
