import { useEffect, type ReactElement } from 'react';
import styled from 'styled-components';
import { VALIDATION, VALIDATION_ERRORS, VALIDATION_TEXT } from '../../../shared/constants';
import { errorMessage } from '../../api/apiSlice';
import { useAppDispatch } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Card } from '../../common/components/Card';
import { ErrorText } from '../../common/components/Field';
import { MutedText } from '../../common/components/Layout';
import { Code } from '../../common/steps/StepCard';
import { StageColumns, StageSide } from '../../common/steps/stageLayout';
import type { StagePanelProps } from '../../common/stages/types';
import { ValidationProgressPanel } from './components/ValidationProgressPanel';
import { useGetValidationPlanQuery } from './validationApi';
import { validationSaga } from './validationSaga';
import { validationStageOpened } from './validationSlice';

/** Ours: the documents show the plan's status but name no texts for it. */
const PLAN_TITLE = 'Validation Plan';
const PLAN_STATUS: Record<string, string> = {
  none: 'No validation plan yet.',
  planning: 'The validation agent is writing the plan...',
  ready: 'Read-only checks of what execution built; each runs after your approval.',
  failed: 'The validation plan could not be created.',
};

/**
 * The validation stage (part 2 section 2): the Validation Progress screen beside the validation plan
 * (polled every 3 s) and the side card the spec gives this stage. Opening it creates the plan and
 * triggers validation when the project has no validation steps yet.
 */
export function ValidationStage({ projectId }: StagePanelProps): ReactElement {
  useInjectSaga(validationSaga);
  const dispatch = useAppDispatch();
  useEffect(() => {
    dispatch(validationStageOpened({ projectId }));
  }, [dispatch, projectId]);
  return (
    <StageColumns>
      <ValidationProgressPanel projectId={projectId} />
      <StageSide>
        <PlanCard projectId={projectId} />
        <Card aria-label={VALIDATION_TEXT.comingSoon}>
          <h3>{VALIDATION_TEXT.comingSoon}</h3>
          <MutedText>{VALIDATION_TEXT.comingSoonDescription}</MutedText>
        </Card>
      </StageSide>
    </StageColumns>
  );
}

function PlanCard({ projectId }: { projectId: number }): ReactElement {
  const { data, error } = useGetValidationPlanQuery(projectId, { pollingInterval: VALIDATION.pollMs, skipPollingIfUnfocused: true });
  const valid = data !== undefined && typeof data === 'object' && typeof data.status === 'string';
  return (
    <Card aria-label={PLAN_TITLE}>
      <h3>{PLAN_TITLE}</h3>
      {error ? (
        <ErrorText>{VALIDATION_ERRORS.fetchPlan(errorMessage(error))}</ErrorText>
      ) : data === undefined ? null : !valid ? (
        <ErrorText>{VALIDATION_ERRORS.planInvalidFormat}</ErrorText>
      ) : (
        <>
          <MutedText>{PLAN_STATUS[data.status] ?? data.status}</MutedText>
          {data.plan && (
            <details>
              <summary>Show the plan</summary>
              <PlanText tabIndex={0}>{data.plan}</PlanText>
            </details>
          )}
        </>
      )}
    </Card>
  );
}

const PlanText = styled(Code)`
  margin-top: ${({ theme }) => theme.space(2)};
  max-height: 360px;
  overflow: auto;
`;
