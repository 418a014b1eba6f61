import { useCallback, useEffect, useState, type ReactElement } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { HOME, TIMING } from '../../../../shared/constants';
import type { HomeNavigationState } from '../../../common/navigationState';

/**
 * 'Payment successful! …' when the home is reached with `paymentSuccess` in navigation state. It
 * hides after 5 s or by hand; the state is then replaced so that a reload does not show it again.
 */
export function PaymentBanner(): ReactElement | null {
  const location = useLocation();
  const navigate = useNavigate();
  const paymentSuccess = Boolean((location.state as HomeNavigationState | null)?.paymentSuccess);
  // Each arrival with `paymentSuccess` (a navigation of its own key) shows the banner until dismissed.
  const [dismissedKey, setDismissedKey] = useState<string | null>(null);
  const visible = paymentSuccess && dismissedKey !== location.key;

  const dismiss = useCallback(() => {
    setDismissedKey(location.key);
    navigate(`${location.pathname}${location.search}`, { replace: true, state: null });
  }, [navigate, location.key, location.pathname, location.search]);

  useEffect(() => {
    if (!visible) return undefined;
    const timer = window.setTimeout(dismiss, TIMING.paymentBannerMs);
    return () => window.clearTimeout(timer);
  }, [visible, dismiss]);

  if (!visible) return null;
  return (
    <Banner role="status">
      <span>{HOME.paymentBanner}</span>
      <CloseButton type="button" aria-label="Dismiss" onClick={dismiss}>
        ×
      </CloseButton>
    </Banner>
  );
}

const Banner = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(4)};
  margin-bottom: ${({ theme }) => theme.space(6)};
  padding: ${({ theme }) => `${theme.space(3)} ${theme.space(4)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.success};
  background: ${({ theme }) => theme.colors.successSurface};
  color: ${({ theme }) => theme.colors.text};
`;

const CloseButton = styled.button`
  border: none;
  background: transparent;
  color: inherit;
  font-size: 18px;
  line-height: 1;
  cursor: pointer;
`;
