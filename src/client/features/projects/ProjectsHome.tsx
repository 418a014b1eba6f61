import { useState, type ReactElement, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import type { Project } from '../../../shared/api/projects';
import { HOME, PRODUCT_NAME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { CollapsibleSidebar } from '../../common/components/CollapsibleSidebar';
import { Main, Shell, SidebarFooter, SidebarTitle } from '../../common/components/Layout';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { UserProfile } from '../../common/auth/UserProfile';
import { CreateProjectDialog } from './components/CreateProjectDialog';
import { PaymentBanner } from './components/PaymentBanner';
import { ProjectList } from './components/ProjectList';
import { projectNavigationState } from '../../common/navigationState';

/**
 * The projects home at /app (part 1 section 2). The credits button and the recent activity belong to
 * their own features: the app places them here (app/ProjectsHomeRoute.tsx).
 */
export function ProjectsHome({ credits, activity }: { credits: ReactNode; activity: ReactNode }): ReactElement {
  useDocumentTitle(`${HOME.title} - ${PRODUCT_NAME}`);
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);

  const onCreated = (project: Project): void => {
    setCreating(false);
    // Relative to /app: the new project's workspace, without loading the project again.
    navigate(String(project.id), { state: projectNavigationState(project) });
  };

  return (
    <Shell>
      <CollapsibleSidebar label="Sidebar" toggleLabel="Menu" heading={<SidebarTitle>{PRODUCT_NAME}</SidebarTitle>}>
        <Button $variant="primary" $block onClick={() => setCreating(true)}>
          {HOME.createButton}
        </Button>
        {credits}
        <SidebarFooter>
          <UserProfile />
        </SidebarFooter>
      </CollapsibleSidebar>
      <Main>
        <PaymentBanner />
        <ProjectList />
        {activity}
      </Main>
      {creating && <CreateProjectDialog onClose={() => setCreating(false)} onCreated={onCreated} />}
    </Shell>
  );
}
