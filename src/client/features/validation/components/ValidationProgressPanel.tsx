import { useCallback, useEffect, useState, type ReactElement, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { EXECUTION_ERRORS, formatStepStatus, VALIDATION, VALIDATION_TEXT } from '../../../../shared/constants';
import { errorMessage } from '../../../api/apiSlice';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { ErrorText } from '../../../common/components/Field';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { Banner, Fact, Facts, Overview, Panel, Switch, ToggleRow } from '../../../common/steps/progressParts';
import { ProgressRing } from '../../../common/steps/ProgressRing';
import { StepCards } from '../../../common/steps/StepCards';
import { summarise, toViewSteps, type ViewStep } from '../../../common/steps/stepModel';
import type { StepActionKind } from '../../../common/steps/stepActions';
import { useGetValidationProgressQuery } from '../validationApi';
import { FailedChecks } from './FailedChecks';
import {
  autoApproveToggled,
  selectValidationAutoApprove,
  selectValidationDocumentation,
  selectValidationPending,
  selectValidationStart,
  stepActionRequested,
} from '../validationSlice';

/** Ours: the documents name no text for a failed progress poll of this stage. */
const LOAD_FAILED = 'Failed to load validation progress';

/**
 * The Validation Progress screen (part 2 section 2): polls GET /api/validation/progress every 3 s and
 * shows the ring, 'X / N steps completed', Current Validation, Last Executed, the Auto-Approve toggle
 * and the step cards; once every step completed, the success banner, then the documentation generation
 * and the move to the project home.
 */
export function ValidationProgressPanel({ projectId }: { projectId: number }): ReactElement {
  const dispatch = useAppDispatch();
  const { data, error, isLoading } = useGetValidationProgressQuery(projectId, { pollingInterval: VALIDATION.pollMs, skipPollingIfUnfocused: true });
  const pending = useAppSelector(selectValidationPending);
  const autoApprove = useAppSelector(selectValidationAutoApprove);
  const start = useAppSelector(selectValidationStart);

  const onAction = useCallback(
    (step: ViewStep, kind: StepActionKind) => dispatch(stepActionRequested({ projectId, stepNumber: step.number, kind, source: 'user' })),
    [dispatch, projectId],
  );

  let content: ReactNode;
  if (isLoading) {
    content = <Spinner label="Loading validation progress..." />;
  } else if (!data) {
    content = <ErrorText>{`${LOAD_FAILED}${error ? `: ${errorMessage(error)}` : ''}`}</ErrorText>;
  } else if (!Array.isArray(data.steps)) {
    content = <ErrorText>{EXECUTION_ERRORS.noStepsData}</ErrorText>;
  } else {
    const steps = toViewSteps(data.steps);
    const summary = summarise(steps);
    content = (
      <>
        {error && <ErrorText>{LOAD_FAILED}</ErrorText>}
        <Overview>
          <ProgressRing percent={summary.percent} />
          <Facts>
            <Fact>{VALIDATION_TEXT.completedCount(summary.completed, summary.total)}</Fact>
            <Fact>
              <span>{VALIDATION_TEXT.currentValidation}:</span> {summary.current ?? VALIDATION_TEXT.none}
            </Fact>
            <Fact>
              <span>{VALIDATION_TEXT.lastExecuted}:</span>{' '}
              {summary.lastExecuted ? `Step ${summary.lastExecuted.number} (${formatStepStatus(summary.lastExecuted.status)})` : VALIDATION_TEXT.none}
            </Fact>
          </Facts>
        </Overview>
        <ToggleRow>
          <Switch label={VALIDATION_TEXT.autoApprove} checked={autoApprove} onChange={(on) => dispatch(autoApproveToggled(on))} />
        </ToggleRow>
        {summary.allCompleted && <ValidatedBanner projectId={projectId} />}
        <FailedChecks projectId={projectId} steps={steps} />
        {steps.length === 0 ? (
          <MutedText>{VALIDATION_TEXT.noSteps}</MutedText>
        ) : (
          <StepCards label="Validation steps" steps={steps} pending={pending} onAction={onAction} stepDefault={VALIDATION_TEXT.stepDefault} promptLabel={VALIDATION_TEXT.promptLabel} />
        )}
      </>
    );
  }

  return (
    <Panel aria-label={VALIDATION_TEXT.title}>
      <h2>{VALIDATION_TEXT.title}</h2>
      {(start.status === 'planning' || start.status === 'triggering') && <Spinner label={start.status === 'planning' ? 'Creating the validation plan...' : 'Starting validation...'} />}
      {start.error && <ErrorText role="alert">{start.error}</ErrorText>}
      {content}
    </Panel>
  );
}

/** Ours: how long the success banner stays before the page moves to the project home. */
export const HOME_AFTER_MS = 4_000;

/**
 * Every step completed: the banner, then 'Generating Infrastructure Documentation...' and the way home.
 * The banner is read before the page moves (a few seconds, with 'Stay here'); a project validated on an
 * earlier visit does not move at all, so its checks can be run again.
 */
function ValidatedBanner({ projectId }: { projectId: number }): ReactElement {
  const navigate = useNavigate();
  const documentation = useAppSelector(selectValidationDocumentation);
  const home = `/app/${projectId}/home`;
  const [staying, setStaying] = useState(false);
  const leaving = documentation.status === 'done' && documentation.moveHome === true && !staying;
  // Part 2 section 2: after the documentation, the page moves to the project home.
  useEffect(() => {
    if (!leaving) return undefined;
    const timer = window.setTimeout(() => navigate(home), HOME_AFTER_MS);
    return () => window.clearTimeout(timer);
  }, [leaving, home, navigate]);
  return (
    <Banner role="status">
      <strong>{VALIDATION_TEXT.validated}</strong>
      <Button $variant="primary" onClick={() => navigate(home)}>
        {VALIDATION_TEXT.viewDetails}
      </Button>
      {documentation.status === 'generating' && (
        <div>
          <Spinner label={VALIDATION_TEXT.generatingDocumentation} />
          <MutedText>{VALIDATION_TEXT.generatingDocumentationDetail}</MutedText>
        </div>
      )}
      {documentation.error && <ErrorText>{documentation.error}</ErrorText>}
      {leaving && (
        <MutedText>
          {`Opening the project home in ${HOME_AFTER_MS / 1000} seconds. `}
          <Button $size="sm" $variant="ghost" onClick={() => setStaying(true)}>
            Stay here
          </Button>
        </MutedText>
      )}
    </Banner>
  );
}
