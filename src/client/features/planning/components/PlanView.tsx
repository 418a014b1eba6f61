import type { ReactElement, ReactNode } from 'react';
import styled from 'styled-components';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { ErrorText } from '../../../common/components/Field';
import { LazyMarkdown } from '../../../common/chat/markdown/LazyMarkdown';
import type { PlanFinding } from '../../../../shared/api/planning';
import { PlanFindings } from './PlanFindings';
import { Panel, PanelHeader } from './StageLayout';

export interface PlanViewProps {
  title: string;
  plan: string | undefined;
  isLoading: boolean;
  /** The stage's load error text, shown when the plan could not be read. */
  error: string | null;
  /** The confirm button. */
  confirm: ReactNode;
  /** Shown while there is no plan yet. */
  empty: ReactNode;
  /** What the plan verifier found in the plan, shown above it. */
  findings?: readonly PlanFinding[];
}

/** A plan as markdown (mermaid blocks drawn as diagrams), with what the verifier found in it and its stage's confirm. */
export function PlanView({ title, plan, isLoading, error, confirm, empty, findings }: PlanViewProps): ReactElement {
  let body: ReactNode;
  if (error) body = <ErrorText>{error}</ErrorText>;
  else if (isLoading) body = <Spinner label={`Loading ${title}...`} />;
  else if (plan?.trim())
    body = (
      <>
        <PlanFindings findings={findings} />
        <LazyMarkdown>{plan}</LazyMarkdown>
      </>
    );
  else body = <MutedText>{empty}</MutedText>;
  return (
    <Panel aria-label={title}>
      <PanelHeader>
        <h2>{title}</h2>
        {confirm}
      </PanelHeader>
      <Body>{body}</Body>
    </Panel>
  );
}

const Body = styled.div`
  min-width: 0;
`;
