import type { ReactElement } from 'react';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import { COSTS, WORKSPACE } from '../../../shared/constants';
import { formatCost } from '../format';
import { useProjectCosts } from './costsApi';

/**
 * The cost box of the workspace and project home sidebars: dollars with 4 decimals, polled every 10 s.
 * From the project home, View Details carries `returnTo=home` so the costs page leads back there.
 */
export function ProjectCost({ projectId, returnTo }: { projectId: number; returnTo?: 'home' }): ReactElement {
  const { data } = useProjectCosts(projectId);
  return (
    <Box aria-label="Project cost">
      <Label>Project Cost</Label>
      <Amount data-testid="project-cost">{formatCost(data?.total_cost)}</Amount>
      <Link to={`/app/${projectId}/costs${returnTo ? `?returnTo=${COSTS.returnToHome}` : ''}`}>{WORKSPACE.viewDetails}</Link>
    </Box>
  );
}

const Box = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  padding: ${({ theme }) => theme.space(3)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.background};
  a { font-size: ${({ theme }) => theme.fontSizes.sm}; }
`;

const Label = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  text-transform: uppercase;
  letter-spacing: 0.06em;
`;

const Amount = styled.span`
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.xl};
`;
