import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { StageId } from '../../../shared/api/stages';
import { SANDBOX_INIT, SANDBOX_INIT_ERRORS } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Button } from '../components/Button';
import { Spinner } from '../components/Spinner';
import { useSetCurrentStageMutation } from '../stages/stagesApi';
import { initialisationDismissed, selectSandboxInit } from './sandboxSlice';

const REQUIREMENTS: StageId = 'requirements';

/**
 * What the implementation confirm is doing, for the Implementation stage to show under its confirm
 * button: progress while the sandbox is prepared, then the error, with the credentials note and
 * 'Return to Requirements' when the error is about an API key or credentials (part 1 section 8).
 */
export function SandboxInitStatus({ projectId }: { projectId: number }): ReactElement | null {
  const dispatch = useAppDispatch();
  const init = useAppSelector(selectSandboxInit);
  const [setCurrentStage, { isLoading: returning }] = useSetCurrentStageMutation();
  if (init.projectId !== projectId) return null;

  switch (init.phase) {
    case 'checking':
      return <Spinner label="Checking the sandbox..." />;
    case 'initialising':
      return <Spinner label={`Preparing the sandbox (attempt ${init.attempt} of ${SANDBOX_INIT.maxAttempts})...`} />;
    case 'starting':
      return <Spinner label="Starting execution..." />;
    case 'failed':
      return (
        <Failure role="alert">
          <p>{init.error}</p>
          {init.credentials && (
            <>
              <Note>{SANDBOX_INIT_ERRORS.credentialsNote}</Note>
              <Button
                $variant="primary"
                disabled={returning}
                onClick={() => {
                  void setCurrentStage({ projectId, stageId: REQUIREMENTS })
                    .unwrap()
                    .then(() => dispatch(initialisationDismissed()))
                    .catch(() => undefined);
                }}
              >
                {SANDBOX_INIT_ERRORS.returnToRequirements}
              </Button>
            </>
          )}
        </Failure>
      );
    default:
      return null;
  }
}

const Failure = styled.div`
  display: flex;
  flex-direction: column;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space(2)};
  padding: ${({ theme }) => theme.space(4)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.danger};
  background: ${({ theme }) => theme.colors.dangerSurface};
  p { margin: 0; }
`;

const Note = styled.p`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
