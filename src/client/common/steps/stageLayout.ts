import styled from 'styled-components';

/**
 * The stage's work beside a narrow side column (the validation stage: its steps beside the plan). The
 * steps get the room; below 1100 px the side column goes under them.
 */
export const StageColumns = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 1fr) minmax(260px, 340px);
  gap: ${({ theme }) => theme.space(5)};
  align-items: start;
  @media (max-width: 1100px) {
    grid-template-columns: minmax(0, 1fr);
  }
`;

export const StageSide = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(5)};
  min-width: 0;
  h3 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(1)}; }
`;
