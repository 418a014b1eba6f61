import type { ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import { PAGE_TITLES } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { CenteredPage } from '../../common/components/Card';
import { ComingSoon } from '../../common/components/ComingSoon';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';

function PublicPlaceholder({ documentTitle, title }: { documentTitle: string; title: string }): ReactElement {
  useDocumentTitle(documentTitle);
  const navigate = useNavigate();
  return (
    <CenteredPage>
      <ComingSoon title={title}>
        <Button onClick={() => navigate('/')}>Back to Home</Button>
      </ComingSoon>
    </CenteredPage>
  );
}

/** /pricing, /terms, /privacy and /refund-policy: their content comes with the marketing release. */
export function PricingPage(): ReactElement {
  return <PublicPlaceholder documentTitle={PAGE_TITLES.pricing} title="Pricing" />;
}

export function TermsPage(): ReactElement {
  return <PublicPlaceholder documentTitle={PAGE_TITLES.terms} title="Terms of Service" />;
}

export function PrivacyPage(): ReactElement {
  return <PublicPlaceholder documentTitle={PAGE_TITLES.privacy} title="Privacy Policy" />;
}

export function RefundPolicyPage(): ReactElement {
  return <PublicPlaceholder documentTitle={PAGE_TITLES.refundPolicy} title="Refund Policy" />;
}
