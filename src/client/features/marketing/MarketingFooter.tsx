import type { ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { LANDING_PAGE, LANDING_TEXT, PRODUCT_NAME, PUBLIC_ROUTES } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { useSupportEmail } from './publicConfigApi';

const FOOTER_ROUTES = [PUBLIC_ROUTES.terms, PUBLIC_ROUTES.privacy, PUBLIC_ROUTES.refundPolicy, PUBLIC_ROUTES.pricing];

/** The public pages' footer: Terms, Privacy, Refunds, Pricing and the contact address (SUPPORT_EMAIL). */
export function MarketingFooter(): ReactElement {
  const navigate = useNavigate();
  const email = useSupportEmail();
  return (
    <Footer>
      <nav aria-label="Footer">
        {LANDING_PAGE.footer.map((label, i) => (
          <Button key={label} $variant="ghost" $size="sm" onClick={() => navigate(FOOTER_ROUTES[i]!)}>
            {label}
          </Button>
        ))}
      </nav>
      <Contact>
        {LANDING_TEXT.contact}: {email ? <a href={`mailto:${email}`}>{email}</a> : '…'}
      </Contact>
      <Small>© {PRODUCT_NAME}</Small>
    </Footer>
  );
}

const Footer = styled.footer`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => `${theme.space(10)} ${theme.space(6)}`};
  border-top: 1px solid ${({ theme }) => theme.colors.border};
  nav { display: flex; flex-wrap: wrap; justify-content: center; gap: ${({ theme }) => theme.space(2)}; }
`;

const Contact = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  a { color: ${({ theme }) => theme.colors.focus}; }
`;

const Small = styled.small`
  color: ${({ theme }) => theme.colors.textMuted};
`;
