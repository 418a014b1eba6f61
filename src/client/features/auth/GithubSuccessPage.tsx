import { useEffect, useState, type ReactElement } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { INSTALLATION_ERRORS, TIMING } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { ButtonRow, Card, CenteredPage } from '../../common/components/Card';
import { Spinner } from '../../common/components/Spinner';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { getInstallationId, setInstallationId } from '../../common/session';

/** Stores the id; answers the error text of part 2 section 8 when it cannot. */
function storeInstallationId(id: string | null): string | null {
  if (!id || !id.trim()) return INSTALLATION_ERRORS.noIdInUrl;
  try {
    setInstallationId(id.trim());
  } catch {
    return INSTALLATION_ERRORS.failedToComplete;
  }
  return getInstallationId() === id.trim() ? null : INSTALLATION_ERRORS.failedToStore;
}

/**
 * Where both sign-in providers end: `/github-success?installation_id=N`. The id becomes the sign-in
 * marker and the user goes to /app; without one, an Installation Error and back to / after 5 s.
 */
export function GithubSuccessPage(): ReactElement {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const installationId = params.get('installation_id');
  const [error, setError] = useState<string | null>(null);
  useDocumentTitle(error ? INSTALLATION_ERRORS.title : 'Signing in');

  useEffect(() => {
    const failure = storeInstallationId(installationId);
    if (failure) {
      // eslint-disable-next-line react-hooks/set-state-in-effect -- the write to localStorage (outside React) decides the page
      setError(failure);
      return undefined;
    }
    navigate('/app', { replace: true });
    return undefined;
  }, [installationId, navigate]);

  useEffect(() => {
    if (!error) return undefined;
    const timer = window.setTimeout(() => navigate('/', { replace: true }), TIMING.installationErrorRedirectMs);
    return () => window.clearTimeout(timer);
  }, [error, navigate]);

  if (!error) {
    return (
      <CenteredPage>
        <Spinner label="Completing sign-in..." />
      </CenteredPage>
    );
  }
  return (
    <CenteredPage>
      <Card role="alert">
        <h1>{INSTALLATION_ERRORS.title}</h1>
        <p>{error}</p>
        <p>You will be taken back to the home page in {TIMING.installationErrorRedirectMs / 1000} seconds.</p>
        <ButtonRow>
          <Button onClick={() => navigate('/', { replace: true })}>Back to Home</Button>
        </ButtonRow>
      </Card>
    </CenteredPage>
  );
}
