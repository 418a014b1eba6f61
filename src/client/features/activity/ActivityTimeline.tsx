import { useState, type ReactElement } from 'react';
import styled from 'styled-components';
import type { Activity } from '../../../shared/api/activity';
import {
  ACTIVITY,
  ACTIVITY_CATEGORIES,
  ACTIVITY_TEXT,
  activityCategory,
  relativeTime,
  truncateDetails,
  type ActivityCategory,
} from '../../../shared/constants';
import { useGetActivityTimelineQuery } from './activityApi';

type Filter = ActivityCategory | typeof ACTIVITY.timelineDefaultFilter;
const CATEGORY_KEYS = Object.keys(ACTIVITY_CATEGORIES) as ActivityCategory[];

/** The label of each type the server records ('Execution step failed (step 3)'); 'Unknown activity' for any other. */
export function activityTitle(activity: Activity): string {
  const label = ACTIVITY_TEXT.typeLabels[activity.activity_type];
  if (label === undefined) return ACTIVITY.unknownType;
  const step = activity.activity_data.step_number;
  return activity.activity_type.endsWith('_FAILED') && typeof step === 'number' ? `${label} (step ${step})` : label;
}

/** The details line: project, stage and requirements summary where known, cut to 100 characters. */
export function activityDetails(activity: Activity): string {
  const data = activity.activity_data;
  const extra = data as Record<string, unknown>;
  const stage = typeof extra.stage_name === 'string' ? extra.stage_name : undefined;
  const parts = [data.project_name, stage, data.requirements_summary?.replace(/\s*\n\s*/g, ' ')].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  return truncateDetails(parts.join(' — '));
}

/**
 * The activity timeline with its category filter (default all). On the projects home it shows up
 * to 20 items with relative times (part 1 section 9).
 */
export function ActivityTimeline({ limit = ACTIVITY.homeTimelineMax, now }: { limit?: number; now?: Date }): ReactElement {
  const { data, isLoading, isError } = useGetActivityTimelineQuery({ limit, offset: ACTIVITY.timelineDefaultOffset });
  const [filter, setFilter] = useState<Filter>(ACTIVITY.timelineDefaultFilter);
  const items = (data?.activities ?? []).filter((a) => filter === 'all' || activityCategory(a.activity_type) === filter);

  return (
    <div>
      <FilterRow>
        <label htmlFor="activity-filter">{ACTIVITY_TEXT.filterLabel}</label>
        <select id="activity-filter" value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
          <option value={ACTIVITY.timelineDefaultFilter}>{ACTIVITY_TEXT.filterAll}</option>
          {CATEGORY_KEYS.map((key) => (
            <option key={key} value={key}>
              {ACTIVITY_CATEGORIES[key]}
            </option>
          ))}
        </select>
      </FilterRow>
      {isLoading && <Muted role="status">{ACTIVITY_TEXT.loading}</Muted>}
      {isError && <ErrorText role="alert">{ACTIVITY.loadError}</ErrorText>}
      {!isLoading && !isError && items.length === 0 && <Muted>{ACTIVITY_TEXT.empty}</Muted>}
      <List aria-label="Activity timeline">
        {items.map((activity) => {
          const details = activityDetails(activity);
          return (
            <Item key={activity.id} data-category={activityCategory(activity.activity_type)}>
              <Badge>{ACTIVITY_CATEGORIES[activityCategory(activity.activity_type)]}</Badge>
              <Body>
                <strong>{activityTitle(activity)}</strong>
                {details && <Details>{details}</Details>}
              </Body>
              <Time dateTime={activity.created_at} title={new Date(activity.created_at).toLocaleString()}>
                {relativeTime(activity.created_at, now)}
              </Time>
            </Item>
          );
        })}
      </List>
    </div>
  );
}

const FilterRow = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  margin-bottom: ${({ theme }) => theme.space(3)};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  color: ${({ theme }) => theme.colors.textMuted};
  select {
    padding: ${({ theme }) => `${theme.space(1)} ${theme.space(2)}`};
    border-radius: ${({ theme }) => theme.radii.md};
    border: 1px solid ${({ theme }) => theme.colors.border};
    background: ${({ theme }) => theme.colors.surfaceRaised};
    color: ${({ theme }) => theme.colors.text};
  }
`;

const List = styled.ul`
  display: flex;
  flex-direction: column;
  margin: 0;
  padding: 0;
  list-style: none;
`;

const Item = styled.li`
  display: flex;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => `${theme.space(3)} 0`};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
`;

const Badge = styled.span`
  flex: none;
  min-width: 88px;
  padding: ${({ theme }) => `${theme.space(0.5)} ${theme.space(2)}`};
  border-radius: ${({ theme }) => theme.radii.round};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  text-align: center;
`;

const Body = styled.div`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
`;

const Details = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  overflow-wrap: anywhere;
`;

const Time = styled.time`
  flex: none;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const Muted = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;

const ErrorText = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.danger};
`;
