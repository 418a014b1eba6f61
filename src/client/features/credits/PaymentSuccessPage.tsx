import type { ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '../../common/components/Button';
import { CenteredPage } from '../../common/components/Card';
import { ComingSoon } from '../../common/components/ComingSoon';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';

/** /credits/success and /payment-success. Payments come with the credits release. */
export function PaymentSuccessPage(): ReactElement {
  useDocumentTitle('Payment');
  const navigate = useNavigate();
  return (
    <CenteredPage>
      <ComingSoon title="Payments" message="Payments are coming in a later release; no payment was processed.">
        <Button $variant="primary" onClick={() => navigate('/app')}>
          Go to Projects
        </Button>
      </ComingSoon>
    </CenteredPage>
  );
}
