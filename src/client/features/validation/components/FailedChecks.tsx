import type { ReactElement } from 'react';
import { Link } from 'react-router-dom';
import styled from 'styled-components';
import { DEVOPS_HELPER_ASK_PARAM, failedCheckQuestion, VALIDATION_HELP } from '../../../../shared/constants';
import { MutedText } from '../../../common/components/Layout';
import type { ViewStep } from '../../../common/steps/stepModel';

/** The last line a failed check printed (its own words for what is wrong), else its error. */
const failureOf = (step: ViewStep): string =>
  (step.output ?? '').split('\n').map((line) => line.trim()).filter(Boolean).pop() ?? step.error ?? '';

/**
 * No dead end at a failed check: each one leads to the DevOps Helper with the check, its command and its
 * failure as the question, ready to send (the Helper works on the project's server).
 */
export function FailedChecks({ projectId, steps }: { projectId: number; steps: ViewStep[] }): ReactElement | null {
  const failed = steps.filter((s) => s.status === 'failed');
  if (!failed.length) return null;
  return (
    <Box aria-label={VALIDATION_HELP.title}>
      <strong>{VALIDATION_HELP.title}</strong>
      <MutedText>{VALIDATION_HELP.text}</MutedText>
      <ul>
        {failed.map((step) => {
          const question = failedCheckQuestion({ number: step.number, title: step.description || `Validation Step ${step.number}`, command: step.command, failure: failureOf(step) });
          const to = `/app/${projectId}/home/devops-helper?${new URLSearchParams({ [DEVOPS_HELPER_ASK_PARAM]: question }).toString()}`;
          return (
            <li key={step.number}>
              <Link to={to}>{VALIDATION_HELP.ask(step.number)}</Link>
            </li>
          );
        })}
      </ul>
    </Box>
  );
}

const Box = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1.5)};
  padding: ${({ theme }) => theme.space(3)};
  border-left: 3px solid ${({ theme }) => theme.colors.danger};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  ul { margin: 0; padding-left: ${({ theme }) => theme.space(5)}; }
`;
