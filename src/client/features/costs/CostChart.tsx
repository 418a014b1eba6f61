import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { DailyCost } from '../../../shared/api/costs';
import { formatCost } from '../../common/format';

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 4;
/** A bar is never wider than this (viewBox units): one day is one bar, not a block across the chart. */
const MAX_BAR = 36;

/**
 * Cost per day as bars, drawn in SVG (no chart library: the costs chunk stays small), with a value axis
 * (zero, half and the highest day) and a date axis under the bars.
 */
export function CostChart({ days, label }: { days: DailyCost[]; label: string }): ReactElement {
  const max = Math.max(...days.map((d) => d.cost), 0) || 1;
  const barWidth = Math.min(MAX_BAR, Math.max(2, (WIDTH - GAP * (days.length - 1)) / Math.max(days.length, 1)));
  const ticks = [max, max / 2, 0];
  return (
    <Figure>
      <ValueAxis aria-hidden="true">
        {ticks.map((value) => (
          <span key={value}>{formatCost(value)}</span>
        ))}
      </ValueAxis>
      <Plot>
        <svg role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none">
          {ticks.map((value) => (
            <line key={value} className="grid" x1={0} x2={WIDTH} y1={HEIGHT - (value / max) * HEIGHT} y2={HEIGHT - (value / max) * HEIGHT} vectorEffect="non-scaling-stroke" />
          ))}
          {days.map((day, i) => {
            const height = Math.max(1, (day.cost / max) * HEIGHT);
            return (
              <rect key={day.date} x={i * (barWidth + GAP)} y={HEIGHT - height} width={barWidth} height={height} rx={2} data-date={day.date}>
                <title>{`${day.date}: ${formatCost(day.cost)}`}</title>
              </rect>
            );
          })}
        </svg>
        <DateAxis aria-hidden="true">
          <span>{days[0]?.date}</span>
          <span>{days.length > 1 ? days[days.length - 1]?.date : ''}</span>
        </DateAxis>
      </Plot>
    </Figure>
  );
}

const Figure = styled.figure`
  display: grid;
  grid-template-columns: auto minmax(0, 1fr);
  gap: ${({ theme }) => theme.space(2)};
  margin: 0;
  svg { display: block; width: 100%; height: 160px; border-left: 1px solid ${({ theme }) => theme.colors.border}; }
  .grid { stroke: ${({ theme }) => theme.colors.border}; stroke-width: 1; }
  rect { fill: ${({ theme }) => theme.colors.primary}; }
  rect:hover { fill: ${({ theme }) => theme.colors.focus}; }
`;

const ValueAxis = styled.div`
  display: flex;
  flex-direction: column;
  justify-content: space-between;
  height: 160px;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-variant-numeric: tabular-nums;
  text-align: right;
  span { line-height: 1; }
`;

const Plot = styled.div`
  min-width: 0;
`;

const DateAxis = styled.div`
  display: flex;
  justify-content: space-between;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
