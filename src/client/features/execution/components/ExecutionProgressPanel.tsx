import { useCallback, type ReactElement, type ReactNode } from 'react';
import styled from 'styled-components';
import { EXECUTION, EXECUTION_ERRORS, EXECUTION_TEXT, formatStepStatus } from '../../../../shared/constants';
import { errorMessage } from '../../../api/apiSlice';
import { useAppDispatch, useAppSelector } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { ErrorText } from '../../../common/components/Field';
import { MutedText } from '../../../common/components/Layout';
import { Spinner } from '../../../common/components/Spinner';
import { useGetExecutionProgressQuery, useResolveChangeMutation } from '../executionApi';
import { summarise, toViewSteps, type ViewStep } from '../../../common/steps/stepModel';
import {
  autoApproveToggled,
  autoRetryToggled,
  chatDraftOffered,
  proceedToValidationRequested,
  selectAutoApprove,
  selectAutoRetry,
  selectAutoRetryNote,
  selectPendingActions,
  selectProceed,
  stepActionRequested,
  type StepActionKind,
} from '../executionSlice';
import { ProgressRing } from '../../../common/steps/ProgressRing';
import { useLiveStepOutput } from '../useLiveStepOutput';
import { StepCards } from '../../../common/steps/StepCards';
import { Banner, Fact, Facts, Overview, Panel, PanelTitle, Switch, ToggleRow } from '../../../common/steps/progressParts';

/**
 * The execution progress panel (part 2 section 2): polls GET /api/execution/progress every 5 s and
 * shows the ring, the counts, Current Execution, Last Executed, the auto-approve and auto-retry
 * toggles, the step cards, and the completion banner with 'Proceed to Validation Stage'. A running
 * step's output comes from the server's event stream as it is printed (useLiveStepOutput), not from
 * faster polls. `actions` sit in the panel's header (the stage's 'open the chat').
 */
export function ExecutionProgressPanel({ projectId, actions }: { projectId: number; actions?: ReactNode }): ReactElement {
  const dispatch = useAppDispatch();
  const { data, error, isLoading } = useGetExecutionProgressQuery(projectId, {
    pollingInterval: EXECUTION.progressPollMs,
    skipPollingIfUnfocused: true,
  });
  const liveOutput = useLiveStepOutput(projectId);
  const pending = useAppSelector(selectPendingActions);
  const planId = data?.id ?? null;

  const onAction = useCallback(
    (step: ViewStep, kind: StepActionKind) => {
      if (planId === null) return;
      dispatch(stepActionRequested({ projectId, planId, stepNumber: step.number, kind, source: 'user' }));
    },
    [dispatch, projectId, planId],
  );
  const onChange = useCallback((step: ViewStep) => dispatch(chatDraftOffered(EXECUTION_TEXT.changeDraft(step.number))), [dispatch]);
  const [resolveChange, resolving] = useResolveChangeMutation();
  const onResolveProposal = useCallback(
    (step: ViewStep, save: boolean) => {
      if (planId !== null) void resolveChange({ projectId, plan_id: planId, step_number: step.number, save });
    },
    [resolveChange, projectId, planId],
  );

  let content: ReactNode;
  if (isLoading) {
    content = <Spinner label="Loading execution progress..." />;
  } else if (!data) {
    content = (
      <ErrorText>
        {EXECUTION_ERRORS.loadProgress}
        {error ? `: ${errorMessage(error)}` : ''}
      </ErrorText>
    );
  } else if (!Array.isArray(data.steps)) {
    content = <ErrorText>{EXECUTION_ERRORS.noStepsData}</ErrorText>;
  } else {
    const steps = toViewSteps(data.steps);
    const summary = summarise(steps, data.totalSteps);
    content = (
      <>
        {error && <ErrorText>{EXECUTION_ERRORS.loadProgress}</ErrorText>}
        <Overview>
          <ProgressRing percent={summary.percent} />
          <Facts>
            <Fact>{EXECUTION_TEXT.completedCount(summary.completed, summary.total)}</Fact>
            <Fact>
              <span>{EXECUTION_TEXT.currentExecution}:</span> {summary.current ?? EXECUTION_TEXT.none}
            </Fact>
            <Fact>
              <span>{EXECUTION_TEXT.lastExecuted}:</span>{' '}
              {summary.lastExecuted
                ? `Step ${summary.lastExecuted.number} (${formatStepStatus(summary.lastExecuted.status)})`
                : EXECUTION_TEXT.none}
            </Fact>
          </Facts>
        </Overview>
        <Toggles />
        {data.revision && (
          <Revision role="note">
            <strong>{EXECUTION_TEXT.revisionTitle(data.revision.number)}</strong>
            {data.revision.removed.length > 0 && (
              <>
                <span>{EXECUTION_TEXT.removedSteps}</span>
                <ul>
                  {data.revision.removed.map((r) => (
                    <li key={r.step_number}>
                      {r.description || EXECUTION_TEXT.stepDefault(r.step_number)} ({formatStepStatus(r.status)})
                    </li>
                  ))}
                </ul>
              </>
            )}
          </Revision>
        )}
        {resolving.error && <ErrorText>{errorMessage(resolving.error)}</ErrorText>}
        {summary.allCompleted && <CompletionBanner projectId={projectId} />}
        {steps.length === 0 ? (
          <MutedText>{EXECUTION_TEXT.noSteps}</MutedText>
        ) : (
          <StepCards label="Execution steps" steps={steps} pending={pending} onAction={onAction} onChange={onChange} onResolveProposal={onResolveProposal} liveOutput={liveOutput} />
        )}
      </>
    );
  }

  return (
    <Panel aria-label={EXECUTION_TEXT.title}>
      <PanelTitle>
        <h2>{EXECUTION_TEXT.title}</h2>
        {actions}
      </PanelTitle>
      {content}
    </Panel>
  );
}

function Toggles(): ReactElement {
  const dispatch = useAppDispatch();
  const autoApprove = useAppSelector(selectAutoApprove);
  const autoRetry = useAppSelector(selectAutoRetry);
  const autoRetryNote = useAppSelector(selectAutoRetryNote);
  return (
    <>
      <ToggleRow>
        <Switch label={EXECUTION_TEXT.autoApprove} checked={autoApprove} onChange={(on) => dispatch(autoApproveToggled(on))} />
        <Switch label={EXECUTION_TEXT.autoRetry} checked={autoRetry} onChange={(on) => dispatch(autoRetryToggled(on))} />
      </ToggleRow>
      {autoRetry && autoRetryNote && <MutedText role="status">{autoRetryNote}</MutedText>}
    </>
  );
}

/** All steps completed: the banner and the move to validation (part 2 section 4). */
function CompletionBanner({ projectId }: { projectId: number }): ReactElement {
  const dispatch = useAppDispatch();
  const proceed = useAppSelector(selectProceed);
  return (
    <Banner role="status">
      <strong>{EXECUTION_TEXT.allCompleted}</strong>
      <Button $variant="primary" disabled={proceed.status === 'pending'} onClick={() => dispatch(proceedToValidationRequested({ projectId }))}>
        {proceed.status === 'pending' ? <Spinner label={EXECUTION_TEXT.proceedToValidation} /> : EXECUTION_TEXT.proceedToValidation}
      </Button>
      {proceed.error && <ErrorText>{proceed.error}</ErrorText>}
    </Banner>
  );
}

const Revision = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  padding: ${({ theme }) => theme.space(3)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  ul { margin: 0; padding-left: ${({ theme }) => theme.space(5)}; }
`;
