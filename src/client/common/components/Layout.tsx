import styled from 'styled-components';

/** Below this width the sidebar folds into a top bar (see CollapsibleSidebar). */
export const PHONE_MAX_WIDTH = 800;

/** Sidebar + main column, the frame of the projects home and the workspace. */
export const Shell = styled.div`
  display: flex;
  min-height: 100vh;
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    flex-direction: column;
  }
`;

export const Sidebar = styled.aside`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  flex: none;
  width: ${({ theme }) => theme.sidebarWidth};
  padding: ${({ theme }) => theme.space(5)};
  border-right: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
  position: sticky;
  top: 0;
  height: 100vh;
  overflow-y: auto;
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    position: static;
    width: 100%;
    height: auto;
    padding: ${({ theme }) => `${theme.space(3)} ${theme.space(4)}`};
    border-right: none;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
`;

/** Pushes what follows to the bottom of the sidebar (the profile area). */
export const SidebarFooter = styled.div`
  margin-top: auto;
  padding-top: ${({ theme }) => theme.space(4)};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
`;

export const SidebarTitle = styled.div`
  font-size: ${({ theme }) => theme.fontSizes.xl};
  font-weight: 700;
  letter-spacing: -0.01em;
`;

export const Main = styled.main`
  flex: 1;
  min-width: 0;
  padding: ${({ theme }) => `${theme.space(8)} ${theme.space(10)}`};
  @media (max-width: ${PHONE_MAX_WIDTH}px) {
    padding: ${({ theme }) => theme.space(5)};
  }
`;

export const SectionTitle = styled.h2`
  font-size: ${({ theme }) => theme.fontSizes.lg};
  margin-bottom: ${({ theme }) => theme.space(3)};
`;

export const MutedText = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;
