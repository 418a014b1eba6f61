import type { ReactElement } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { WORKSPACE } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { CenteredPage } from '../../common/components/Card';
import { ComingSoon } from '../../common/components/ComingSoon';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';

/** /app/{projectId}/home/*: documentation and sandbox control come with their releases. */
export function ProjectHomePage(): ReactElement {
  useDocumentTitle('Project Home');
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  return (
    <CenteredPage>
      <ComingSoon
        title="Project Home"
        message="Project documentation and sandbox controls are coming in a later release."
      >
        <Button onClick={() => navigate(`/app/${projectId}`)}>Open Workflow</Button>
        <Button $variant="primary" onClick={() => navigate('/app')}>
          {WORKSPACE.returnToProjects}
        </Button>
      </ComingSoon>
    </CenteredPage>
  );
}
