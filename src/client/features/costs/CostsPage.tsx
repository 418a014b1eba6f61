import type { ReactElement } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { Button } from '../../common/components/Button';
import { CenteredPage } from '../../common/components/Card';
import { ComingSoon } from '../../common/components/ComingSoon';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';

/** Part 2 section 2: `returnTo=home` goes back to the project home, anything else to the workspace. */
export function costsReturnPath(projectId: string, returnTo: string | null): string {
  return returnTo === 'home' ? `/app/${projectId}/home` : `/app/${projectId}`;
}

/** /app/{projectId}/costs. The breakdown comes with the credits release; the way back is real. */
export function CostsPage(): ReactElement {
  useDocumentTitle('Project Costs');
  const { projectId = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  return (
    <CenteredPage>
      <ComingSoon title="Cost Details" message="The detailed cost breakdown is coming in a later release.">
        <Button $variant="primary" onClick={() => navigate(costsReturnPath(projectId, params.get('returnTo')))}>
          Back
        </Button>
      </ComingSoon>
    </CenteredPage>
  );
}
