import styled from 'styled-components';

/** A bordered surface; the building block of cards, panels and notices. */
export const Card = styled.section`
  padding: ${({ theme }) => theme.space(6)};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
`;

/** A full-page column that centres one card; used by the small standalone pages. */
export const CenteredPage = styled.main`
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  min-height: 100vh;
  padding: ${({ theme }) => theme.space(6)};
  text-align: center;

  & > ${Card} {
    width: 100%;
    max-width: 560px;
  }
  h1 {
    font-size: ${({ theme }) => theme.fontSizes.xxl};
    margin-bottom: ${({ theme }) => theme.space(3)};
  }
  p {
    color: ${({ theme }) => theme.colors.textMuted};
  }
`;

export const ButtonRow = styled.div`
  display: flex;
  flex-wrap: wrap;
  justify-content: center;
  gap: ${({ theme }) => theme.space(2)};
  margin-top: ${({ theme }) => theme.space(6)};
`;
