import type { ReactElement } from 'react';
import styled from 'styled-components';
import { ACTIVITY_TEXT } from '../../../shared/constants';
import { Card } from '../../common/components/Card';
import { SectionTitle } from '../../common/components/Layout';
import { ActivityHeatmap } from './ActivityHeatmap';
import { ActivityTimeline } from './ActivityTimeline';
import { useGetActivityStatsQuery } from './activityApi';

/** The activity overview on the projects home, below 'My Projects': stats, the 12-month heatmap, the timeline. */
export function RecentActivity(): ReactElement {
  const { data: stats } = useGetActivityStatsQuery();
  return (
    <Region aria-labelledby="recent-activity-title">
      <Header>
        <SectionTitle id="recent-activity-title">{ACTIVITY_TEXT.title}</SectionTitle>
        <Stats aria-label="Activity stats">
          <div>
            <dt>{ACTIVITY_TEXT.totalActivities}</dt>
            <dd data-testid="total-activities">{stats?.total_activities ?? '—'}</dd>
          </div>
          <div>
            <dt>{ACTIVITY_TEXT.currentStreak}</dt>
            <dd data-testid="current-streak">{stats ? ACTIVITY_TEXT.streakDays(stats.current_streak) : '—'}</dd>
          </div>
        </Stats>
      </Header>
      <ActivityHeatmap />
      <Spacer />
      <ActivityTimeline />
    </Region>
  );
}

const Region = styled(Card)`
  margin-top: ${({ theme }) => theme.space(8)};
`;

const Header = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: baseline;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(4)};
  margin-bottom: ${({ theme }) => theme.space(3)};
`;

const Stats = styled.dl`
  display: flex;
  gap: ${({ theme }) => theme.space(6)};
  margin: 0;
  div { display: flex; gap: ${({ theme }) => theme.space(2)}; align-items: baseline; }
  dt { color: ${({ theme }) => theme.colors.textMuted}; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  dd { margin: 0; font-weight: 600; }
`;

const Spacer = styled.div`
  height: ${({ theme }) => theme.space(5)};
`;
