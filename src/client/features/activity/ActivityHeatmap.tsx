import { useMemo, useRef, useState, type KeyboardEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { ACTIVITY, ACTIVITY_TEXT } from '../../../shared/constants';
import { useGetActivityGridQuery } from './activityApi';
import { buildHeatmap, type HeatmapDay } from './heatmap';

const LEVELS = [0, 1, 2, 3, 4] as const;

/**
 * The last 12 months of activity (part 2 section 2): month labels, day labels Sun to Sat, weekly
 * columns, five levels, a Less–More legend and a tooltip on hover. The 365 days span two calendar
 * years, so both grids are read. On failure: the error text over an empty grid at level 0.
 */
export function ActivityHeatmap({ today = new Date() }: { today?: Date }): ReactElement {
  const year = today.getUTCFullYear();
  const current = useGetActivityGridQuery(year);
  const previous = useGetActivityGridQuery(year - 1);
  const [hovered, setHovered] = useState<HeatmapDay | null>(null);
  // One cell is in the tab order (roving tabindex); arrows move a day (up/down) or a week (left/right).
  const [focusedDate, setFocusedDate] = useState<string | null>(null);
  const gridRef = useRef<HTMLDivElement>(null);

  const failed = current.isError || previous.isError;
  const loading = !failed && (current.isLoading || previous.isLoading);
  const dayKey = today.toISOString().slice(0, 10);
  const heatmap = useMemo(() => {
    const counts = new Map<string, number>();
    if (!failed) {
      for (const day of [...(previous.data?.activities ?? []), ...(current.data?.activities ?? [])]) counts.set(day.date, day.count);
    }
    return buildHeatmap(counts, new Date(`${dayKey}T00:00:00Z`));
  }, [failed, current.data, previous.data, dayKey]);

  const days = heatmap.weeks.flat().filter((day): day is HeatmapDay => day !== null);
  const activeDate = focusedDate ?? days.at(-1)?.date ?? null;

  const onGridKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = { ArrowUp: -1, ArrowDown: 1, ArrowLeft: -7, ArrowRight: 7, Home: -days.length, End: days.length }[event.key];
    if (step === undefined || activeDate === null) return;
    event.preventDefault();
    const index = days.findIndex((day) => day.date === activeDate);
    const next = days[Math.min(Math.max(index + step, 0), days.length - 1)]!;
    setFocusedDate(next.date);
    setHovered(next);
    gridRef.current?.querySelector<HTMLElement>(`[data-date="${next.date}"]`)?.focus();
  };

  if (loading) {
    return (
      <Frame aria-busy="true">
        <p role="status">{ACTIVITY_TEXT.loading}</p>
      </Frame>
    );
  }

  return (
    <Frame>
      {failed && <ErrorText role="alert">{ACTIVITY.loadError}</ErrorText>}
      <Scroll>
        <Grid ref={gridRef} role="grid" aria-label="Activity in the last 12 months" $weeks={heatmap.weeks.length} onKeyDown={onGridKeyDown}>
          <Corner aria-hidden="true" />
          {heatmap.weeks.map((_, week) => {
            const month = heatmap.months.find((m) => m.week === week);
            return (
              <MonthLabel key={`m${week}`} aria-hidden="true" style={{ gridColumn: week + 2 }}>
                {month?.label ?? ''}
              </MonthLabel>
            );
          })}
          {/* One row per weekday (the grid pattern: cells in rows), laid out by the grid itself (display: contents). */}
          {ACTIVITY.dayLabels.map((label, weekday) => (
            <Row key={label} role="row">
              <DayLabel role="rowheader" style={{ gridRow: weekday + 2 }}>
                {label}
              </DayLabel>
              {heatmap.weeks.map((days, week) => {
                const day = days[weekday];
                return day ? (
                  <Cell
                    key={day.date}
                    role="gridcell"
                    data-date={day.date}
                    data-level={day.level}
                    aria-label={ACTIVITY_TEXT.dayTooltip(day.count, day.date)}
                    $level={day.level}
                    tabIndex={day.date === activeDate ? 0 : -1}
                    style={{ gridColumn: week + 2, gridRow: weekday + 2 }}
                    onFocus={() => {
                      setFocusedDate(day.date);
                      setHovered(day);
                    }}
                    onBlur={() => setHovered(null)}
                    onMouseEnter={() => setHovered(day)}
                    onMouseLeave={() => setHovered(null)}
                  />
                ) : null;
              })}
            </Row>
          ))}
        </Grid>
      </Scroll>
      <Footer>
        {/* A tooltip only while it names a day: an empty one has no accessible name. */}
        <Tooltip role={hovered ? 'tooltip' : undefined} aria-live="polite">
          {hovered ? ACTIVITY_TEXT.dayTooltip(hovered.count, hovered.date) : ''}
        </Tooltip>
        <Legend aria-label="Legend">
          <span>{ACTIVITY.legendLess}</span>
          {LEVELS.map((level) => (
            <Cell key={level} as="span" data-legend-level={level} $level={level} />
          ))}
          <span>{ACTIVITY.legendMore}</span>
        </Legend>
      </Footer>
    </Frame>
  );
}

const Frame = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
`;

const Scroll = styled.div`
  overflow-x: auto;
`;

const Grid = styled.div<{ $weeks: number }>`
  display: grid;
  grid-template-columns: 32px repeat(${({ $weeks }) => $weeks}, 11px);
  grid-template-rows: 16px repeat(7, 11px);
  gap: 3px;
  font-size: ${({ theme }) => theme.fontSizes.xs};
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Corner = styled.span`
  grid-column: 1;
  grid-row: 1;
`;

const MonthLabel = styled.span`
  grid-row: 1;
  white-space: nowrap;
  overflow: visible;
`;

const Row = styled.div`
  display: contents;
`;

const DayLabel = styled.span`
  grid-column: 1;
  line-height: 11px;
`;

const Cell = styled.div<{ $level: number }>`
  display: inline-block;
  width: 11px;
  height: 11px;
  border-radius: 2px;
  background: ${({ theme, $level }) =>
    $level === 0 ? theme.colors.surfaceRaised : `color-mix(in srgb, ${theme.colors.success} ${[0, 30, 55, 80, 100][$level]}%, ${theme.colors.surfaceRaised})`};
  outline: 1px solid ${({ theme }) => theme.colors.border};
  outline-offset: -1px;
`;

const Footer = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(3)};
  min-height: 18px;
  font-size: ${({ theme }) => theme.fontSizes.xs};
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Tooltip = styled.span`
  color: ${({ theme }) => theme.colors.text};
`;

const Legend = styled.div`
  display: flex;
  align-items: center;
  gap: 3px;
`;

const ErrorText = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.danger};
`;
