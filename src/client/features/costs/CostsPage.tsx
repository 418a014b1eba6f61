import type { ReactElement } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { COSTS, FREE_MODELS, isFreeModel, PRODUCT_NAME, TOKEN_PRICES } from '../../../shared/constants';
import type { TokenRates, TokenUsageTurn } from '../../../shared/api/costs';
import { Button } from '../../common/components/Button';
import { Card } from '../../common/components/Card';
import { ErrorText } from '../../common/components/Field';
import { MutedText, PHONE_MAX_WIDTH, SectionTitle } from '../../common/components/Layout';
import { formatCost } from '../../common/format';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { agentName } from './agentNames';
import { CostChart } from './CostChart';
import { useGetTokenUsageQuery, useProjectCosts } from '../../common/costs/costsApi';

/** The intelligence costs table's columns; on a phone each row lists them as label and value. */
const COLUMNS = ['Agent', 'Model', 'Input tokens', 'Output tokens', 'Cost'] as const;
const COSTS_TABLE_LABEL = 'Costs by agent and model';

/** Part 2 section 2: `returnTo=home` goes back to the project home, anything else to the workspace. */
export function costsReturnPath(projectId: string, returnTo: string | null): string {
  return returnTo === COSTS.returnToHome ? `/app/${projectId}/home` : `/app/${projectId}`;
}

function ratesNotice(rates: TokenRates | undefined): string {
  if (rates?.mode === 'regular') return COSTS.regularNotice(rates.input_per_million);
  const { inputPerMillion, outputPerMillion } = TOKEN_PRICES.researchPreview;
  return COSTS.researchPreviewNotice(rates?.input_per_million ?? inputPerMillion, rates?.output_per_million ?? outputPerMillion);
}

/**
 * /app/{projectId}/costs (part 2 sections 2 and 7): total cost (polled every 10 s) and last update,
 * intelligence costs by agent and model, cost per day, the about-cost text, the pricing notices and
 * a link to /pricing.
 */
export function CostsPage(): ReactElement {
  useDocumentTitle(`${COSTS.title} - ${PRODUCT_NAME}`);
  const { projectId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const id = Number(projectId);
  const costs = useProjectCosts(id);
  const usage = useGetTokenUsageQuery(id);
  const lastUpdated = costs.data?.last_updated;

  return (
    <Page>
      <Header>
        <Button onClick={() => navigate(costsReturnPath(projectId, params.get('returnTo')))}>
          <span aria-hidden="true">←</span>
          {COSTS.back}
        </Button>
        <h1>{COSTS.title}</h1>
      </Header>

      {(costs.isError || usage.isError) && <ErrorText>{COSTS.loadFailed}</ErrorText>}

      <Figures>
        <Card aria-label={COSTS.totalCost}>
          <MutedText>{COSTS.totalCost}</MutedText>
          <Big data-testid="total-cost">{formatCost(costs.data?.total_cost)}</Big>
        </Card>
        <Card aria-label={COSTS.lastUpdated}>
          <MutedText>{COSTS.lastUpdated}</MutedText>
          <Big data-testid="last-updated">{lastUpdated ? new Date(lastUpdated).toLocaleString() : COSTS.never}</Big>
        </Card>
      </Figures>

      <Card aria-label={COSTS.intelligenceCosts}>
        <SectionTitle>{COSTS.intelligenceCosts}</SectionTitle>
        {usage.data && usage.data.breakdown.length === 0 && <MutedText>{COSTS.noUsage}</MutedText>}
        {usage.data && usage.data.breakdown.length > 0 && (
          <>
            <TableScroll role="region" aria-label={COSTS_TABLE_LABEL} tabIndex={0}>
              <Table>
                <thead>
                  <tr>
                    {COLUMNS.map((column) => (
                      <th key={column} scope="col">
                        {column}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {usage.data.breakdown.map((line) => (
                    <tr key={`${line.agent}/${line.model}`}>
                      {[agentName(line.agent), line.model, line.input_tokens.toLocaleString(), line.output_tokens.toLocaleString(), formatCost(line.cost)].map((value, i) => (
                        <td key={COLUMNS[i]} data-label={COLUMNS[i]}>
                          {value}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </Table>
            </TableScroll>
            {usage.data.daily && usage.data.daily.length > 0 && (
              <>
                <SectionTitle as="h3">{COSTS.costOverTime}</SectionTitle>
                <CostChart days={usage.data.daily} label={COSTS.costOverTime} />
              </>
            )}
          </>
        )}
      </Card>

      {usage.data?.turns && usage.data.turns.length > 0 && <TurnsCard turns={usage.data.turns} total={usage.data.turn_count ?? usage.data.turns.length} />}

      <Card aria-label={COSTS.aboutCosts}>
        <SectionTitle>{COSTS.aboutCosts}</SectionTitle>
        <MutedText>{COSTS.aboutCostsText}</MutedText>
        <Notices>
          <li>{ratesNotice(usage.data?.rates)}</li>
          {usage.data?.rates?.mode !== 'regular' && <li>{COSTS.regularAfterPreview()}</li>}
          {Object.values(FREE_MODELS).map((text) => (
            <li key={text}>{text}</li>
          ))}
        </Notices>
        <Link to="/pricing">{COSTS.viewPricing}</Link>
      </Card>
    </Page>
  );
}

/** Each model call, newest first, with the model that answered it (a free model's say so). */
function TurnsCard({ turns, total }: { turns: TokenUsageTurn[]; total: number }): ReactElement {
  return (
    <Card aria-label={COSTS.turns}>
      <SectionTitle>{COSTS.turns}</SectionTitle>
      <MutedText>{COSTS.turnsNote(turns.length, total)}</MutedText>
      <TableScroll>
        <Table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Agent</th>
              <th scope="col">Model</th>
              <th scope="col">Tokens in / out</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {turns.map((turn, i) => (
              <tr key={`${turn.at}/${i}`}>
                <td>{new Date(turn.at).toLocaleString()}</td>
                <td>{agentName(turn.agent)}</td>
                <td>{turn.model}</td>
                <td>{`${turn.input_tokens.toLocaleString()} / ${turn.output_tokens.toLocaleString()}`}</td>
                <td>{isFreeModel(turn.model) ? `${formatCost(turn.cost)} (${COSTS.free})` : formatCost(turn.cost)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      </TableScroll>
    </Card>
  );
}

const Page = styled.main`
  max-width: 960px;
  margin: 0 auto;
  padding: ${({ theme }) => theme.space(6)};
  @media (max-width: ${PHONE_MAX_WIDTH}px) { padding: ${({ theme }) => theme.space(3)}; }
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
`;

const Header = styled.header`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(4)};
  h1 { font-size: ${({ theme }) => theme.fontSizes.xxl}; }
`;

const Figures = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(220px, 1fr));
  gap: ${({ theme }) => theme.space(4)};
  p { margin: 0; }
`;

const Big = styled.span`
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.xl};
`;

/** A wide table scrolls inside its card on a phone; the page itself never scrolls sideways. */
const TableScroll = styled.div`
  max-width: 100%;
  overflow-x: auto;
`;

const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  margin-bottom: ${({ theme }) => theme.space(4)};
  th, td { text-align: left; padding: ${({ theme }) => theme.space(2)}; border-bottom: 1px solid ${({ theme }) => theme.colors.border}; }
  td:nth-child(n + 3), th:nth-child(n + 3) { text-align: right; font-family: ${({ theme }) => theme.fonts.mono}; }
  /* A phone has no room for five columns: each row becomes label/value lines, the cost among them, none cut off. */
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    tr { display: grid; grid-template-columns: auto minmax(0, 1fr); padding: ${({ theme }) => theme.space(2)} 0; border-bottom: 1px solid ${({ theme }) => theme.colors.border}; }
    td { display: contents; }
    td::before { content: attr(data-label); color: ${({ theme }) => theme.colors.textMuted}; padding-right: ${({ theme }) => theme.space(3)}; }
    td:nth-child(n) { text-align: right; overflow-wrap: anywhere; }
  }
`;

const Notices = styled.ul`
  color: ${({ theme }) => theme.colors.textMuted};
  padding-left: ${({ theme }) => theme.space(5)};
`;
