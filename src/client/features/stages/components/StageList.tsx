import type { ReactElement } from 'react';
import styled, { css } from 'styled-components';
import type { Stage } from '../../../../shared/api/stages';
import { WORKSPACE } from '../../../../shared/constants';
import { MutedText } from '../../../common/components/Layout';

export interface StageListProps {
  stages: Stage[];
  currentIndex: number;
  onSelect: (stage: Stage, index: number) => void;
  busy?: boolean;
}

/**
 * The enabled stages in the workspace sidebar: number, name, description and a completed check. A
 * stage that is neither active nor completed cannot be opened yet.
 */
export function StageList({ stages, currentIndex, onSelect, busy = false }: StageListProps): ReactElement {
  if (stages.length === 0) return <MutedText>{WORKSPACE.noStagesAvailable}</MutedText>;
  return (
    <List aria-label="Stages">
      {stages.map((stage, index) => {
        const current = index === currentIndex;
        const reachable = stage.is_active || stage.is_completed;
        return (
          <li key={stage.stage_id}>
            <StageButton
              type="button"
              $current={current}
              disabled={!reachable || busy}
              aria-current={current ? 'step' : undefined}
              onClick={() => onSelect(stage, index)}
            >
              <Number $completed={stage.is_completed} aria-hidden="true">
                {stage.is_completed ? '✓' : index + 1}
              </Number>
              <Text>
                <Name>
                  <span className="visually-hidden">Stage {index + 1}: </span>
                  {stage.name}
                  {stage.is_completed && <span className="visually-hidden"> (completed)</span>}
                </Name>
                <Description>{stage.description}</Description>
              </Text>
            </StageButton>
          </li>
        );
      })}
    </List>
  );
}

const List = styled.ol`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  margin: 0;
  padding: 0;
  list-style: none;
`;

const StageButton = styled.button<{ $current: boolean }>`
  display: flex;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space(3)};
  width: 100%;
  padding: ${({ theme }) => theme.space(3)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid transparent;
  background: transparent;
  text-align: left;
  cursor: pointer;
  &:hover:not(:disabled) { background: ${({ theme }) => theme.colors.surfaceHover}; }
  &:disabled { opacity: 0.5; cursor: not-allowed; }
  ${({ $current, theme }) =>
    $current &&
    css`
      border-color: ${theme.colors.primary};
      background: ${theme.colors.surfaceRaised};
    `}
`;

const Number = styled.span<{ $completed: boolean }>`
  display: inline-flex;
  flex: none;
  align-items: center;
  justify-content: center;
  width: 24px;
  height: 24px;
  border-radius: 50%;
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-weight: 700;
  border: 1px solid ${({ theme, $completed }) => ($completed ? theme.colors.success : theme.colors.border)};
  color: ${({ theme, $completed }) => ($completed ? theme.colors.success : theme.colors.text)};
`;

const Text = styled.span`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(0.5)};
  min-width: 0;
`;

const Name = styled.span`
  font-weight: 600;
`;

const Description = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;
