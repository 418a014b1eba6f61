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
import { ToolPreflightNotice } from '../sandbox/ToolPreflightNotice';

/** Ours: the spec leaves the execution chat's title and placeholder to the caller. */
const CHAT_TITLE = 'Execution Agent';
const CHAT_PLACEHOLDER = 'Ask the execution agent about the run, or ask it to change a step...';

/**
 * The execution stage (part 2 section 2): the chat panel with its Chat and Terminal tabs beside the
 * execution progress panel, and the side card the spec gives this stage.
 */
export function ExecutionStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(executionSaga);
  return (
    <StageColumns>
      <ExecutionChatPanel projectId={projectId} title={CHAT_TITLE} placeholder={CHAT_PLACEHOLDER} />
      <StageSide>
        {/* Shown only while (or after a failed) sandbox preparation for this project: nothing once it is done. */}
        <SandboxInitStatus projectId={projectId} />
        <ToolPreflightNotice projectId={projectId} />
        <ExecutionProgressPanel projectId={projectId} />
        <Card aria-label={EXECUTION_TEXT.comingSoon}>
          <h3>{EXECUTION_TEXT.comingSoon}</h3>
          <MutedText>{EXECUTION_TEXT.comingSoonDescription}</MutedText>
        </Card>
      </StageSide>
    </StageColumns>
  );
}

/** The two-column stage layout, shared with the validation stage. */
export const StageColumns = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  gap: ${({ theme }) => theme.space(5)};
  align-items: start;
  @media (max-width: 1200px) {
    grid-template-columns: minmax(0, 1fr);
  }
`;

export const StageSide = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
  h3 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(1)}; }
`;
