import type { ReactElement } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { LANDING, PRODUCT_NAME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { startLogin } from './startLogin';

/** The public pages' header: product name, Pricing, Get Started. */
export function MarketingHeader(): ReactElement {
  const navigate = useNavigate();
  return (
    <Header>
      <Brand to="/">{PRODUCT_NAME}</Brand>
      <Nav aria-label="Main">
        <Button $variant="ghost" onClick={() => navigate('/pricing')}>
          {LANDING.pricing}
        </Button>
        <Button $variant="primary" onClick={() => startLogin('header')}>
          {LANDING.getStarted}
        </Button>
      </Nav>
    </Header>
  );
}

const Header = styled.header`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(4)};
  padding: ${({ theme }) => `${theme.space(4)} ${theme.space(8)}`};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  @media (max-width: 600px) {
    padding: ${({ theme }) => theme.space(4)};
  }
`;

const Brand = styled(Link)`
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme }) => theme.fontSizes.xl};
  font-weight: 700;
  text-decoration: none;
`;

const Nav = styled.nav`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
`;
