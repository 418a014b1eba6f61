import type { ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { PROJECT_HOME_TEXT } from '../../../../shared/constants/environmentGuide';
import { errorMessage } from '../../../api/apiSlice';
import { ErrorText } from '../../../common/components/Field';
import { useGetProjectStateQuery, useSetCurrentStageMutation } from '../../../common/stages/stagesApi';

/**
 * The way back from the project home to the workflow: each stage the project has reached opens the
 * workspace on it (the validation stage re-runs its checks there; execution shows what ran).
 */
export function StageLinks({ projectId }: { projectId: number }): ReactElement | null {
  const navigate = useNavigate();
  const { data } = useGetProjectStateQuery(projectId);
  const [setCurrentStage, { isLoading, error }] = useSetCurrentStageMutation();
  // Enabled and reached, in workflow order (the workspace's own list, without importing its page's chunk).
  const stages = [...(data?.stages ?? [])].filter((s) => s.is_enabled && (s.is_active || s.is_completed)).sort((a, b) => a.order - b.order);
  if (!stages.length) return null;
  const open = async (stageId: string): Promise<void> => {
    const moved = await setCurrentStage({ projectId, stageId });
    if (!('error' in moved)) navigate(`/app/${projectId}`);
  };
  return (
    <nav aria-label={PROJECT_HOME_TEXT.stages}>
      <Heading>{PROJECT_HOME_TEXT.stages}</Heading>
      <List>
        {stages.map((stage) => (
          <li key={stage.stage_id}>
            <StageButton type="button" disabled={isLoading} aria-label={PROJECT_HOME_TEXT.openStage(stage.name)} onClick={() => void open(stage.stage_id)}>
              <span aria-hidden="true">{stage.is_completed ? '✓' : '•'}</span> {stage.name}
            </StageButton>
          </li>
        ))}
      </List>
      {error && <ErrorText>{errorMessage(error)}</ErrorText>}
    </nav>
  );
}

const Heading = styled.h2`
  font-size: ${({ theme }) => theme.fontSizes.sm};
  color: ${({ theme }) => theme.colors.textMuted};
  margin: ${({ theme }) => theme.space(2)} 0 ${({ theme }) => theme.space(1)};
`;

const List = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
`;

const StageButton = styled.button`
  display: block;
  width: 100%;
  text-align: left;
  padding: ${({ theme }) => `${theme.space(1.5)} ${theme.space(3)}`};
  border: none;
  border-radius: ${({ theme }) => theme.radii.md};
  background: none;
  color: ${({ theme }) => theme.colors.text};
  font: inherit;
  cursor: pointer;
  &:hover { background: ${({ theme }) => theme.colors.surfaceHover}; }
  &:focus-visible { outline: 2px solid ${({ theme }) => theme.colors.focus}; outline-offset: 1px; }
`;
