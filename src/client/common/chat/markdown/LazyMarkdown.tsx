import { lazy, Suspense, type ReactElement } from 'react';
import styled from 'styled-components';
import type { MarkdownProps } from './Markdown';

const Markdown = lazy(() => import(/* webpackChunkName: "markdown" */ './Markdown').then((m) => ({ default: m.Markdown })));

/**
 * Markdown from its own chunk (react-markdown and its unified family stay out of every stage chunk
 * until a message or a plan is shown); the plain text stands in while it loads.
 */
export function LazyMarkdown(props: MarkdownProps): ReactElement {
  return (
    <Suspense fallback={<PlainText>{props.children}</PlainText>}>
      <Markdown {...props} />
    </Suspense>
  );
}

const PlainText = styled.div`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;
