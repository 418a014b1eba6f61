import type { ReactElement } from 'react';
import { ComingSoon } from '../../../common/components/ComingSoon';
import type { StagePanelProps } from '../types';

/** The panel of a stage whose release has not landed: names the stage and says so plainly. */
export function StagePlaceholder({ stage, title }: Pick<StagePanelProps, 'stage'> & { title?: string }): ReactElement {
  return (
    <ComingSoon
      headingLevel="h2"
      title={title ?? stage.name}
      message={`The ${stage.name} stage arrives in a later release.`}
    />
  );
}
