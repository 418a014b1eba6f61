import type { ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import {
  COSTS,
  EXAMPLE_COSTS,
  LANDING,
  LEGAL,
  LEGAL_PAGES,
  PAGE_TITLES,
  FREE_MODELS,
  PRICING_PAGE,
  PRICING_TEXT,
  PUBLIC_ROUTES,
} from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { useGetPublicConfigQuery, useSupportEmail } from './publicConfigApi';

const LEGAL_LINKS = [
  { to: PUBLIC_ROUTES.terms, label: LEGAL_PAGES.terms.title },
  { to: PUBLIC_ROUTES.privacy, label: LEGAL_PAGES.privacy.title },
  { to: PUBLIC_ROUTES.refundPolicy, label: LEGAL_PAGES.refundPolicy.title },
];

/**
 * The pricing page (part 2 section 2): the rates the meter charges, read from the server's
 * configuration, the example costs, the quick-info ticks, Get Started and the legal links.
 */
export function PricingPage(): ReactElement {
  useDocumentTitle(PAGE_TITLES.pricing);
  const navigate = useNavigate();
  const { data, isError } = useGetPublicConfigQuery();
  const rates = data?.rates;
  return (
    <Page>
      <Top>
        <Button $variant="ghost" onClick={() => navigate(-1)}>
          ← {PRICING_PAGE.back}
        </Button>
      </Top>
      <h1>{PRICING_PAGE.title}</h1>
      <Lead>{PRICING_PAGE.intro}</Lead>

      <Panel aria-labelledby="current-rates">
        <h2 id="current-rates">{PRICING_TEXT.currentRates}</h2>
        {!rates && !isError && <p role="status">…</p>}
        {isError && <p role="alert">{COSTS.regularAfterPreview()}</p>}
        {rates?.mode === 'research_preview' && (
          <>
            <Tag>{PRICING_TEXT.researchPreview}</Tag>
            <Rates>
              <dt>{PRICING_PAGE.inputTokens}</dt>
              <dd data-testid="input-rate">{PRICING_PAGE.perMillion(rates.input_per_million)}</dd>
              <dt>{PRICING_PAGE.outputTokens}</dt>
              <dd data-testid="output-rate">{PRICING_PAGE.perMillion(rates.output_per_million)}</dd>
            </Rates>
            <Note>{COSTS.regularAfterPreview()}</Note>
          </>
        )}
        {rates?.mode === 'regular' && (
          <Rates>
            <dt>{PRICING_PAGE.anyTokens}</dt>
            <dd data-testid="regular-rate">{PRICING_PAGE.perMillion(rates.input_per_million)}</dd>
          </Rates>
        )}
        {Object.values(FREE_MODELS).map((text) => (
          <Note key={text}>{text}</Note>
        ))}
      </Panel>

      <Panel aria-labelledby="example-costs">
        <h2 id="example-costs">{PRICING_TEXT.exampleCosts}</h2>
        <Table>
          <thead>
            <tr>
              <th>{PRICING_PAGE.task}</th>
              <th>{PRICING_PAGE.time}</th>
              <th>{PRICING_PAGE.cost}</th>
            </tr>
          </thead>
          <tbody>
            {EXAMPLE_COSTS.map((row) => (
              <tr key={row.task}>
                <td>{row.task}</td>
                <td>{row.time}</td>
                <td>{row.cost}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Panel>

      <Ticks aria-label="Quick info">
        {PRICING_TEXT.quickInfo.map((tick) => (
          <li key={tick}>✓ {tick}</li>
        ))}
      </Ticks>
      <Button $variant="primary" onClick={() => navigate(PUBLIC_ROUTES.landing)}>
        {LANDING.getStarted}
      </Button>
      <LegalLinks aria-label={PRICING_PAGE.legal}>
        {LEGAL_LINKS.map((link) => (
          <Button key={link.to} $variant="ghost" $size="sm" onClick={() => navigate(link.to)}>
            {link.label}
          </Button>
        ))}
      </LegalLinks>
    </Page>
  );
}

type LegalKind = keyof typeof LEGAL_PAGES;
const LEGAL_TITLES: Record<LegalKind, string> = {
  terms: PAGE_TITLES.terms,
  privacy: PAGE_TITLES.privacy,
  refundPolicy: PAGE_TITLES.refundPolicy,
};

/** A legal page: title, 'Last updated: January 2024', the content points, Back to Home and an accept button to /. */
function LegalPage({ kind }: { kind: LegalKind }): ReactElement {
  useDocumentTitle(LEGAL_TITLES[kind]);
  const navigate = useNavigate();
  const email = useSupportEmail() ?? '…';
  const page = LEGAL_PAGES[kind];
  return (
    <Page>
      <Top>
        <Button $variant="ghost" onClick={() => navigate(PUBLIC_ROUTES.landing)}>
          ← {LEGAL.backToHome}
        </Button>
      </Top>
      <h1>{page.title}</h1>
      <Note>{LEGAL.lastUpdated}</Note>
      <Points>
        {page.points(email).map((point) => (
          <li key={point.slice(0, 40)}>{point}</li>
        ))}
      </Points>
      <Button $variant="primary" onClick={() => navigate(PUBLIC_ROUTES.landing)}>
        {page.accept}
      </Button>
    </Page>
  );
}

export function TermsPage(): ReactElement {
  return <LegalPage kind="terms" />;
}

export function PrivacyPage(): ReactElement {
  return <LegalPage kind="privacy" />;
}

export function RefundPolicyPage(): ReactElement {
  return <LegalPage kind="refundPolicy" />;
}

const Page = styled.main`
  display: flex;
  flex-direction: column;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space(5)};
  max-width: 820px;
  margin: 0 auto;
  padding: ${({ theme }) => `${theme.space(8)} ${theme.space(6)} ${theme.space(16)}`};
  h1 { font-size: ${({ theme }) => theme.fontSizes.xxl}; }
`;

const Top = styled.div`
  width: 100%;
`;

const Lead = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Panel = styled.section`
  width: 100%;
  padding: ${({ theme }) => theme.space(6)};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; margin-bottom: ${({ theme }) => theme.space(3)}; }
`;

const Tag = styled.span`
  display: inline-block;
  margin-bottom: ${({ theme }) => theme.space(3)};
  padding: 0 ${({ theme }) => theme.space(2)};
  border-radius: ${({ theme }) => theme.radii.round};
  background: ${({ theme }) => theme.colors.successSurface};
  color: ${({ theme }) => theme.colors.success};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Rates = styled.dl`
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: ${({ theme }) => `${theme.space(2)} ${theme.space(6)}`};
  margin: 0;
  dt { color: ${({ theme }) => theme.colors.textMuted}; }
  dd { margin: 0; font-weight: 600; }
`;

const Note = styled.p`
  margin: ${({ theme }) => theme.space(3)} 0 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th, td { text-align: left; padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`}; border-bottom: 1px solid ${({ theme }) => theme.colors.border}; }
  th { color: ${({ theme }) => theme.colors.textMuted}; font-weight: 600; }
`;

const Ticks = styled.ul`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(6)};
  margin: 0;
  padding: 0;
  list-style: none;
  li { color: ${({ theme }) => theme.colors.success}; }
`;

const LegalLinks = styled.nav`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(2)};
`;

const Points = styled.ul`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  margin: 0;
  padding-left: ${({ theme }) => theme.space(5)};
  line-height: 1.6;
`;
