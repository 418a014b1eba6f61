import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { DailyCost } from '../../../shared/api/costs';
import { formatCost } from '../../common/format';

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 4;

/** Cost per day as bars, drawn in SVG (no chart library: the costs chunk stays small). */
export function CostChart({ days, label }: { days: DailyCost[]; label: string }): ReactElement {
  const max = Math.max(...days.map((d) => d.cost), 0) || 1;
  const barWidth = Math.max(2, (WIDTH - GAP * (days.length - 1)) / Math.max(days.length, 1));
  return (
    <Figure>
      <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT + 20}`} preserveAspectRatio="none">
        {days.map((day, i) => {
          const height = Math.max(1, (day.cost / max) * HEIGHT);
          return (
            <rect key={day.date} x={i * (barWidth + GAP)} y={HEIGHT - height} width={barWidth} height={height} rx={2} data-date={day.date}>
              <title>{`${day.date}: ${formatCost(day.cost)}`}</title>
            </rect>
          );
        })}
      </svg>
      <Axis>
        <span>{days[0]?.date}</span>
        <span>{days.length > 1 ? days[days.length - 1]?.date : ''}</span>
      </Axis>
    </Figure>
  );
}

const Figure = styled.figure`
  margin: 0;
  svg { width: 100%; height: 180px; }
  rect { fill: ${({ theme }) => theme.colors.primary}; }
  rect:hover { fill: ${({ theme }) => theme.colors.primaryHover}; }
`;

const Axis = styled.div`
  display: flex;
  justify-content: space-between;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
