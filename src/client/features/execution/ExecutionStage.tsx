import type { ReactElement } from 'react';
import styled from 'styled-components';
import { EXECUTION_TEXT } from '../../../shared/constants';
import { useInjectSaga } from '../../app/injectSaga';
import { Card } from '../../common/components/Card';
import { MutedText } from '../../common/components/Layout';
import type { StagePanelProps } from '../stages/types';
import { ExecutionChatPanel } from './components/ExecutionChatPanel';
import { ExecutionProgressPanel } from './components/ExecutionProgressPanel';
import { executionSaga } from './executionSaga';
import { SandboxInitStatus } from '../sandbox/SandboxInitStatus';

/** Ours: the spec leaves the execution chat's title and placeholder to the caller. */
const CHAT_TITLE = 'Execution Agent';
const CHAT_PLACEHOLDER = 'Ask the execution agent about the run, or ask it to change a step...';

/**
 * The execution stage (part 2 section 2): the execution progress panel with its step cards across the
 * whole width, and the chat panel (Chat and Terminal tabs) docked at the bottom of the window so that
 * it stays in view while the steps scroll, with room for a terminal of 100+ columns. The side card the
 * spec gives this stage follows the steps.
 */
export function ExecutionStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(executionSaga);
  return (
    <DockedLayout>
      <WorkArea>
        {/* Shown only while (or after a failed) sandbox preparation for this project: nothing once it is done. */}
        <SandboxInitStatus projectId={projectId} />
        <ExecutionProgressPanel projectId={projectId} />
        <Card aria-label={EXECUTION_TEXT.comingSoon}>
          <h3>{EXECUTION_TEXT.comingSoon}</h3>
          <MutedText>{EXECUTION_TEXT.comingSoonDescription}</MutedText>
        </Card>
      </WorkArea>
      <ExecutionChatPanel projectId={projectId} title={CHAT_TITLE} placeholder={CHAT_PLACEHOLDER} docked />
    </DockedLayout>
  );
}

/**
 * The work and its dock: the dock is the last child and sticks to the bottom of the window while the
 * work above it scrolls with the page (and sits in its own place once the end is reached).
 */
const DockedLayout = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
`;

const WorkArea = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
  min-width: 0;
  h3 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(1)}; }
`;

/**
 * The stage's work beside a narrow side column (the validation stage: its steps beside the plan). The
 * steps get the room; below 1100 px the side column goes under them.
 */
export const StageColumns = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) minmax(260px, 340px);
  gap: ${({ theme }) => theme.space(5)};
  align-items: start;
  @media (max-width: 1100px) {
    grid-template-columns: minmax(0, 1fr);
  }
`;

export const StageSide = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
  min-width: 0;
  h3 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(1)}; }
`;
