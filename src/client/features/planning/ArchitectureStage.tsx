import type { ReactElement } from 'react';
import { StagePlaceholder } from '../stages/components/StagePlaceholder';
import type { StagePanelProps } from '../stages/types';

/** Placeholder until this stage's release lands; the workspace frame around it is real. */
export function ArchitectureStage({ stage }: StagePanelProps): ReactElement {
  return <StagePlaceholder stage={stage} title="Cloud Architecture Plan" />;
}
