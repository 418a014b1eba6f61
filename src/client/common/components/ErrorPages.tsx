import { useEffect, type ReactElement } from 'react';
import { useNavigate, useRouteError } from 'react-router-dom';
import { PAGES } from '../../../shared/constants';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { logError } from '../log';
import { Button } from './Button';
import { ButtonRow, Card, CenteredPage } from './Card';

function ReturnToProjects(): ReactElement {
  const navigate = useNavigate();
  return (
    <ButtonRow>
      <Button $variant="primary" onClick={() => navigate('/app')}>
        {PAGES.returnToProjects}
      </Button>
    </ButtonRow>
  );
}

/** The route-level error element: anything a route throws while rendering lands here. */
export function RouteErrorPage(): ReactElement {
  const error = useRouteError();
  useEffect(() => logError('route', error), [error]);
  useDocumentTitle(PAGES.somethingWentWrong);
  return (
    <CenteredPage>
      <Card>
        <h1>{PAGES.somethingWentWrong}</h1>
        <p>An unexpected error stopped this page. Your projects are safe; try again from the projects list.</p>
        <ReturnToProjects />
      </Card>
    </CenteredPage>
  );
}

export function NotFoundPage(): ReactElement {
  useDocumentTitle(PAGES.pageNotFound);
  return (
    <CenteredPage>
      <Card>
        <h1>{PAGES.pageNotFound}</h1>
        <p>There is nothing at this address.</p>
        <ReturnToProjects />
      </Card>
    </CenteredPage>
  );
}
