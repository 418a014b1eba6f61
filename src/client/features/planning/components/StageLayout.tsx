import styled from 'styled-components';

/**
 * A stage: its chat beside its view, stacked on narrow screens. The view (plans with their commands
 * and diagrams, the requirements' tabs) gets the larger share.
 */
export const StageColumns = styled.div`
  display: grid;
  grid-template-columns: minmax(0, 2fr) minmax(0, 3fr);
  gap: ${({ theme }) => theme.space(5)};
  align-items: start;
  @media (max-width: 1200px) {
    grid-template-columns: minmax(0, 1fr);
  }
`;

/** A stage's view column when it holds more than one panel (the architecture step's server and plan). */
export const StageView = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  min-width: 0;
`;

/** The bordered panel beside a chat (requirements, plans). */
export const Panel = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  min-width: 0;
  padding: ${({ theme }) => theme.space(5)};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
`;

export const PanelHeader = styled.header`
  display: flex;
  align-items: center;
  justify-content: space-between;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(3)};
  h2 { font-size: ${({ theme }) => theme.fontSizes.lg}; }
`;

/** A short status line (saved, no changes). */
export const StatusText = styled.p.attrs({ role: 'status' })`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
