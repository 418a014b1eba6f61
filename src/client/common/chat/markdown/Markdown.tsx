import type { Element, ElementContent } from 'hast';
import { lazy, Suspense, type ReactElement } from 'react';
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import styled from 'styled-components';

const MermaidDiagram = lazy(() =>
  import(/* webpackChunkName: "mermaid-diagram" */ './MermaidDiagram').then((m) => ({ default: m.MermaidDiagram })),
);

export interface MarkdownProps {
  children: string;
  /**
   * Render ```mermaid blocks as diagrams. Off while a reply still streams: a half-written diagram is
   * shown as its source until it is complete.
   */
  diagrams?: boolean;
}

/**
 * Links may only be http, https, irc, ircs, mailto, xmpp or relative (part 2 section 5); anything else
 * (javascript:, data:, vbscript:) becomes an empty href. react-markdown's default does exactly this.
 */
export function safeUrl(url: string): string {
  return defaultUrlTransform(url);
}

function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

/** The source of a ```mermaid block, when `pre` holds one. */
export function mermaidSource(pre: Element | undefined): string | null {
  const code = pre?.children[0];
  if (!code || code.type !== 'element' || code.tagName !== 'code') return null;
  const classes = code.properties.className;
  if (!Array.isArray(classes) || !classes.includes('language-mermaid')) return null;
  return code.children.map(textOf).join('');
}

const externalLink: Components['a'] = ({ node: _node, href, children, ...rest }) => {
  const external = Boolean(href && /^[a-z][a-z0-9+.-]*:/i.test(href));
  return (
    <a href={href} {...rest} {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
      {children}
    </a>
  );
};

/**
 * A model reply's image on another host is shown as a link, never fetched: an image request would
 * tell that host who reads the reply and when (and the Content-Security-Policy refuses it anyway).
 * Images of the app's own origin (relative addresses) still show.
 */
const ownImage: Components['img'] = ({ node: _node, src, alt, ...rest }) => {
  const source = typeof src === 'string' ? src : '';
  if (/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(source)) {
    return (
      <a href={source} target="_blank" rel="noopener noreferrer">
        {alt ? `${alt} (image: ${source})` : `Image: ${source}`}
      </a>
    );
  }
  return <img src={source} alt={alt} {...rest} />;
};

const plainPre: Components['pre'] = ({ node: _node, ...rest }) => <pre {...rest} />;

const diagramPre: Components['pre'] = ({ node, ...rest }) => {
  const source = mermaidSource(node);
  if (source === null) return <pre {...rest} />;
  return (
    <Suspense fallback={<pre {...rest} />}>
      <MermaidDiagram source={source} />
    </Suspense>
  );
};

/** GitHub-flavoured markdown (tables, task lists, strikethrough, autolinks): what plans and models write. */
const REMARK_PLUGINS = [remarkGfm];

/**
 * Agent replies and plans as markdown, without raw HTML (react-markdown never renders it), with the
 * link rule above. Lives in its own chunk (see LazyMarkdown); mermaid loads only when a diagram shows.
 */
/** A table wider than its column scrolls inside it (CSS below): focusable, so a keyboard can scroll it too. */
const scrollingTable: Components['table'] = ({ node: _node, ...props }) => <ScrollingTable tabIndex={0} {...props} />;
const ScrollingTable = styled.table``;

export function Markdown({ children, diagrams = true }: MarkdownProps): ReactElement {
  return (
    <Prose>
      <ReactMarkdown remarkPlugins={REMARK_PLUGINS} urlTransform={safeUrl} components={{ a: externalLink, img: ownImage, pre: diagrams ? diagramPre : plainPre, table: scrollingTable }}>
        {children}
      </ReactMarkdown>
    </Prose>
  );
}

const Prose = styled.div`
  overflow-wrap: anywhere;
  line-height: 1.55;
  & > :first-child { margin-top: 0; }
  & > :last-child { margin-bottom: 0; }
  p, ul, ol, pre, blockquote { margin: 0 0 ${({ theme }) => theme.space(3)}; }
  ul, ol { padding-left: ${({ theme }) => theme.space(5)}; }
  li + li { margin-top: ${({ theme }) => theme.space(1)}; }
  h1, h2, h3, h4 {
    margin: ${({ theme }) => theme.space(4)} 0 ${({ theme }) => theme.space(2)};
    font-size: ${({ theme }) => theme.fontSizes.lg};
  }
  h1 { font-size: ${({ theme }) => theme.fontSizes.xl}; }
  a { color: ${({ theme }) => theme.colors.focus}; }
  code {
    font-family: ${({ theme }) => theme.fonts.mono};
    font-size: 0.92em;
    padding: 1px 4px;
    border-radius: ${({ theme }) => theme.radii.sm};
    background: ${({ theme }) => theme.colors.background};
  }
  /* Commands wrap instead of scrolling sideways: a person reads a whole command at a glance. */
  pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    padding: ${({ theme }) => theme.space(3)};
    border-radius: ${({ theme }) => theme.radii.md};
    border: 1px solid ${({ theme }) => theme.colors.border};
    background: ${({ theme }) => theme.colors.background};
    code { padding: 0; background: none; }
  }
  table {
    display: block;
    max-width: 100%;
    overflow-x: auto;
    margin: 0 0 ${({ theme }) => theme.space(3)};
    border-collapse: collapse;
    font-size: ${({ theme }) => theme.fontSizes.sm};
  }
  th, td {
    padding: ${({ theme }) => `${theme.space(1.5)} ${theme.space(2.5)}`};
    border: 1px solid ${({ theme }) => theme.colors.border};
    text-align: left;
    vertical-align: top;
    /* Words stay whole in narrow columns ('anywhere' would split a header letter by letter). */
    overflow-wrap: break-word;
  }
  th { background: ${({ theme }) => theme.colors.background}; }
  blockquote {
    padding-left: ${({ theme }) => theme.space(3)};
    border-left: 3px solid ${({ theme }) => theme.colors.border};
    color: ${({ theme }) => theme.colors.textMuted};
  }
`;
