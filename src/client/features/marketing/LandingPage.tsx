import type { ReactElement } from 'react';
import styled from 'styled-components';
import { LANDING, PRODUCT_NAME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { MarketingHeader } from './MarketingHeader';
import { startLogin } from './startLogin';

const POINTS = [
  { title: 'You approve every step', text: 'Agents plan with you; nothing runs until you say so.' },
  { title: 'Plans you can read', text: 'Requirements, a cloud architecture and an implementation plan, in plain text.' },
  { title: 'A sandbox per project', text: 'Infrastructure code runs in an isolated workspace you can download.' },
];

/** The landing page at /. Its full content (trailer, feature sections, demos) comes with the marketing release. */
export function LandingPage(): ReactElement {
  useDocumentTitle(PRODUCT_NAME);
  return (
    <>
      <MarketingHeader />
      <Hero>
        <Eyebrow>Research preview</Eyebrow>
        <h1>{PRODUCT_NAME}</h1>
        <Tagline>{LANDING.tagline}</Tagline>
        <Button $variant="primary" onClick={() => startLogin('hero')}>
          {LANDING.getStarted}
        </Button>
      </Hero>
      <Points aria-label="What it does">
        {POINTS.map((point) => (
          <li key={point.title}>
            <h2>{point.title}</h2>
            <p>{point.text}</p>
          </li>
        ))}
      </Points>
    </>
  );
}

const Hero = styled.main`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space(5)};
  padding: ${({ theme }) => `${theme.space(24)} ${theme.space(6)} ${theme.space(16)}`};
  text-align: center;
  h1 {
    font-size: ${({ theme }) => theme.fontSizes.hero};
    letter-spacing: -0.02em;
  }
`;

const Eyebrow = styled.span`
  color: ${({ theme }) => theme.colors.primary};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.08em;
`;

const Tagline = styled.p`
  max-width: 640px;
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xl};
`;

const Points = styled.ul`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(220px, 1fr));
  gap: ${({ theme }) => theme.space(4)};
  max-width: 960px;
  margin: 0 auto ${({ theme }) => theme.space(20)};
  padding: 0 ${({ theme }) => theme.space(6)};
  list-style: none;
  li {
    padding: ${({ theme }) => theme.space(5)};
    border-radius: ${({ theme }) => theme.radii.lg};
    border: 1px solid ${({ theme }) => theme.colors.border};
    background: ${({ theme }) => theme.colors.surface};
  }
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; margin-bottom: ${({ theme }) => theme.space(2)}; }
  p { margin: 0; color: ${({ theme }) => theme.colors.textMuted}; }
`;
