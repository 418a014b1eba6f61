import { useEffect, type ReactElement } from 'react';
import { useNavigate } from 'react-router-dom';
import { TIMING, WORKSPACE } from '../../../shared/constants/foundation';
import { Button } from '../components/Button';
import { ButtonRow, Card, CenteredPage } from '../components/Card';
import { MutedText } from '../components/Layout';

/**
 * 'Project not found' (a 404: missing, or another person's), then to / after a moment, which sends a
 * signed-in user on to /app. Shown by the workspace and the project home alike.
 */
export function ProjectNotFound(): ReactElement {
  const navigate = useNavigate();
  useEffect(() => {
    const timer = window.setTimeout(() => navigate('/', { replace: true }), TIMING.projectNotFoundRedirectMs);
    return () => window.clearTimeout(timer);
  }, [navigate]);
  return (
    <CenteredPage>
      <Card role="alert">
        <h1>{WORKSPACE.projectNotFound}</h1>
        <MutedText>Taking you back to your projects...</MutedText>
        <ButtonRow>
          <Button $variant="primary" onClick={() => navigate('/app')}>
            {WORKSPACE.returnToProjects}
          </Button>
        </ButtonRow>
      </Card>
    </CenteredPage>
  );
}
