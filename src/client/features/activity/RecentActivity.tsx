import type { ReactElement } from 'react';
import styled from 'styled-components';
import { Card } from '../../common/components/Card';
import { MutedText, SectionTitle } from '../../common/components/Layout';

/** The place of the home's recent-activity timeline; the activity release fills it. */
export function RecentActivity(): ReactElement {
  return (
    <Region aria-labelledby="recent-activity-title">
      <SectionTitle id="recent-activity-title">Recent Activity</SectionTitle>
      <MutedText>Your activity timeline is coming in a later release.</MutedText>
    </Region>
  );
}

const Region = styled(Card)`
  margin-top: ${({ theme }) => theme.space(8)};
`;
