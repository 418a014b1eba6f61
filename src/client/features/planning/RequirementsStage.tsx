import type { ReactElement } from 'react';
import { StagePlaceholder } from '../stages/components/StagePlaceholder';
import type { StagePanelProps } from '../stages/types';

/** Placeholder until this stage's release lands; the workspace frame around it is real. */
export function RequirementsStage({ stage }: StagePanelProps): ReactElement {
  return <StagePlaceholder stage={stage} title="Requirements Gatherer" />;
}
