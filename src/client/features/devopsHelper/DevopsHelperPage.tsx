import type { ReactElement } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { Button } from '../../common/components/Button';
import { CenteredPage } from '../../common/components/Card';
import { ComingSoon } from '../../common/components/ComingSoon';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';

/** /app/{projectId}/home/devops-helper: the full-page DevOps Helper comes with its release. */
export function DevopsHelperPage(): ReactElement {
  useDocumentTitle('DevOps Helper');
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  return (
    <CenteredPage>
      <ComingSoon title="DevOps Helper">
        <Button $variant="primary" onClick={() => navigate(`/app/${projectId}/home`)}>
          Back to Project Home
        </Button>
      </ComingSoon>
    </CenteredPage>
  );
}
