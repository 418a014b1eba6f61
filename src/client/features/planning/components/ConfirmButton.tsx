import type { ReactElement } from 'react';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { ErrorText } from '../../../common/components/Field';
import {
  architectureConfirmRequested,
  implementationConfirmRequested,
  requirementsConfirmRequested,
  selectConfirmError,
  selectConfirming,
  type ConfirmStage,
} from '../planningSlice';

const REQUESTS = {
  requirements: requirementsConfirmRequested,
  architecture: architectureConfirmRequested,
  implementation: implementationConfirmRequested,
} as const;

/**
 * A stage's confirm: runs the stage's confirm flow (planningSaga) and shows its progress and failure.
 * `showError={false}` when the stage shows the failure itself (the implementation confirm's
 * SandboxInitStatus, with the credentials note and 'Return to Requirements').
 */
export function ConfirmButton(props: {
  projectId: number;
  stage: ConfirmStage;
  label: string;
  enabled: boolean;
  hint?: string;
  showError?: boolean;
}): ReactElement {
  const { projectId, stage, label, enabled, hint, showError = true } = props;
  const dispatch = useAppDispatch();
  const confirming = useAppSelector((state) => selectConfirming(state, projectId, stage));
  const error = useAppSelector((state) => selectConfirmError(state, projectId, stage));
  return (
    <div>
      <Button
        $variant="primary"
        disabled={!enabled || confirming}
        title={!enabled ? hint : undefined}
        onClick={() => dispatch(REQUESTS[stage]({ projectId }))}
      >
        {confirming ? 'Confirming...' : label}
      </Button>
      {showError && error && <ErrorText>{error}</ErrorText>}
    </div>
  );
}
