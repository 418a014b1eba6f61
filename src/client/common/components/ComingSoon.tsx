import type { ReactElement, ReactNode } from 'react';
import styled from 'styled-components';
import { Card } from './Card';

export interface ComingSoonProps {
  /** What the place is, e.g. 'Pricing' or 'Execution'. */
  title: string;
  /** Overrides the default sentence '{title} is coming in a later release.' */
  message?: string;
  /** Navigation that already works here (back buttons and links). */
  children?: ReactNode;
  headingLevel?: 'h1' | 'h2';
}

/**
 * The honest placeholder of a screen whose feature has not landed yet: the route, its guard and the
 * navigation around it are real, the content says plainly that it comes later.
 */
export function ComingSoon({ title, message, children, headingLevel = 'h1' }: ComingSoonProps): ReactElement {
  const Heading = headingLevel;
  return (
    <Notice aria-label={title}>
      <Badge>Coming in a later release</Badge>
      <Heading>{title}</Heading>
      <p>{message ?? `${title} is coming in a later release.`}</p>
      {children && <Actions>{children}</Actions>}
    </Notice>
  );
}

const Notice = styled(Card)`
  max-width: 560px;
  margin: 0 auto;
  text-align: center;
  h1, h2 {
    font-size: ${({ theme }) => theme.fontSizes.xl};
    margin: ${({ theme }) => theme.space(3)} 0;
  }
  p { color: ${({ theme }) => theme.colors.textMuted}; margin: 0; }
`;

const Badge = styled.span`
  display: inline-block;
  padding: ${({ theme }) => `${theme.space(0.5)} ${theme.space(2.5)}`};
  border-radius: ${({ theme }) => theme.radii.round};
  border: 1px solid ${({ theme }) => theme.colors.border};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  text-transform: uppercase;
  letter-spacing: 0.06em;
`;

const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  justify-content: center;
  gap: ${({ theme }) => theme.space(2)};
  margin-top: ${({ theme }) => theme.space(5)};
`;
