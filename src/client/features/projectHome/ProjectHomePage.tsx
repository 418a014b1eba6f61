import { type ReactElement, type ReactNode } from 'react';
import { Link, NavLink, Route, Routes, useLocation, useNavigate, useParams } from 'react-router-dom';
import styled from 'styled-components';
import type { Project } from '../../../shared/api/projects';
import { PROJECT_HOME_NAV } from '../../../shared/constants/documentation';
import { PRODUCT_NAME, WORKSPACE } from '../../../shared/constants/foundation';
import { errorMessage, errorStatus } from '../../api/apiSlice';
import { Button } from '../../common/components/Button';
import { Card, CenteredPage } from '../../common/components/Card';
import { ErrorText } from '../../common/components/Field';
import { CollapsibleSidebar } from '../../common/components/CollapsibleSidebar';
import { Main, MutedText, Shell, SidebarFooter } from '../../common/components/Layout';
import { Spinner } from '../../common/components/Spinner';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { UserProfile } from '../../common/auth/UserProfile';
import { useGetCurrentDocumentationQuery } from '../../common/documentation/documentationApi';
import { projectFromState } from '../../common/navigationState';
import { ProjectNotFound } from '../../common/projects/ProjectNotFound';
import { useGetProjectQuery } from '../../common/projects/projectsApi';
import { ProjectCost } from '../../common/costs/ProjectCost';
import { SandboxPanel } from './components/SandboxPanel';
import { NotificationsPanel } from './components/NotificationsPanel';
import { DriftPanel } from './components/DriftPanel';
import { ReleasesPanel } from './components/ReleasesPanel';
import { BackupsPanel } from './components/BackupsPanel';
import { StageLinks } from './components/StageLinks';
import {
  ConfigurationDataView,
  EnvironmentGuideView,
  FullDocumentationView,
  QuickStartView,
} from './views/DocumentationViews';

const PROJECT_ID = /^\d{1,15}$/;

/** Sub-paths of /app/{projectId}/home; the index is the quick start. devops-helper is its own route. */
export const HOME_VIEWS = {
  devopsHelper: 'devops-helper',
  documentation: 'documentation',
  environment: 'environment',
  configuration: 'configuration',
} as const;

/** /app/{projectId}/home/*: documentation views and sandbox control (part 2 section 2, "Project home"). */
export function ProjectHomePage(): ReactElement {
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  if (!PROJECT_ID.test(projectId)) {
    return (
      <CenteredPage>
        <Card role="alert">
          <h1>{WORKSPACE.invalidProjectIdFull(projectId)}</h1>
          <Button $variant="primary" onClick={() => navigate('/app')}>
            {WORKSPACE.returnToProjects}
          </Button>
        </Card>
      </CenteredPage>
    );
  }
  return <ProjectHome projectId={Number(projectId)} />;
}

function ProjectHome({ projectId }: { projectId: number }): ReactElement {
  const location = useLocation();
  const projectQuery = useGetProjectQuery(projectId, { skip: projectFromState(location.state, projectId) !== null });
  if (errorStatus(projectQuery.error) === 404) return <ProjectNotFound />;
  return <ProjectHomeViews projectId={projectId} />;
}

function ProjectHomeViews({ projectId }: { projectId: number }): ReactElement {
  const docsQuery = useGetCurrentDocumentationQuery(projectId);
  const docs = { data: docsQuery.data, isLoading: docsQuery.isLoading, error: docsQuery.error, refetch: docsQuery.refetch };
  return (
    <ProjectHomeLayout projectId={projectId}>
      <SandboxPanel projectId={projectId} />
      <NotificationsPanel projectId={projectId} />
      <BackupsPanel projectId={projectId} />
      <ReleasesPanel projectId={projectId} />
      <DriftPanel projectId={projectId} />
      <Routes>
        <Route index element={<QuickStartView docs={docs} projectId={projectId} />} />
        <Route path={HOME_VIEWS.documentation} element={<FullDocumentationView docs={docs} />} />
        <Route path={HOME_VIEWS.environment} element={<EnvironmentGuideView />} />
        <Route path={HOME_VIEWS.configuration} element={<ConfigurationDataView docs={docs} />} />
        <Route path="*" element={<QuickStartView docs={docs} projectId={projectId} />} />
      </Routes>
    </ProjectHomeLayout>
  );
}

/**
 * The project home's frame: the sidebar (views, project, cost box, Return to Projects) and the main
 * area, which shows `children`. The full-page DevOps Helper (/app/{projectId}/home/devops-helper) can
 * put its panel here to keep the project home around it.
 */
export function ProjectHomeLayout({ projectId, children }: { projectId: number; children: ReactNode }): ReactElement {
  const location = useLocation();
  const stateProject = projectFromState(location.state, projectId);
  const projectQuery = useGetProjectQuery(projectId, { skip: stateProject !== null });
  const project = stateProject ?? projectQuery.data;
  // Shared with the views: RTK Query asks once for both.
  const docsQuery = useGetCurrentDocumentationQuery(projectId);
  useDocumentTitle(project ? `${project.name} - Project Home - ${PRODUCT_NAME}` : `Project Home - ${PRODUCT_NAME}`);
  const hasConfigData = Object.keys(docsQuery.data?.key_value_data ?? {}).length > 0;

  return (
    <Shell>
      <CollapsibleSidebar
        label="Project home"
        toggleLabel="Menu"
        heading={<ProjectHeading project={project} loading={projectQuery.isLoading} error={projectQuery.error} />}
      >
        <Nav aria-label="Project home">
          <NavItem to={`/app/${projectId}/home/${HOME_VIEWS.devopsHelper}`}>{PROJECT_HOME_NAV.devopsHelper}</NavItem>
          <NavItem to={`/app/${projectId}/home`} end>
            {PROJECT_HOME_NAV.quickStart}
          </NavItem>
          <NavItem to={`/app/${projectId}/home/${HOME_VIEWS.documentation}`}>{PROJECT_HOME_NAV.fullDocumentation}</NavItem>
          <NavItem to={`/app/${projectId}/home/${HOME_VIEWS.environment}`}>{PROJECT_HOME_NAV.environmentGuide}</NavItem>
          {hasConfigData && (
            <NavItem to={`/app/${projectId}/home/${HOME_VIEWS.configuration}`}>{PROJECT_HOME_NAV.configurationData}</NavItem>
          )}
        </Nav>
        <StageLinks projectId={projectId} />
        <ProjectCost projectId={projectId} returnTo="home" />
        <Link to="/app">{WORKSPACE.returnToProjects}</Link>
        <SidebarFooter>
          <UserProfile />
        </SidebarFooter>
      </CollapsibleSidebar>
      <Main>{children}</Main>
    </Shell>
  );
}

function ProjectHeading(props: { project: Project | undefined; loading: boolean; error: unknown }): ReactElement {
  if (props.project) {
    return (
      <Heading>
        <h1>{props.project.name}</h1>
        {props.project.description && <MutedText>{props.project.description}</MutedText>}
      </Heading>
    );
  }
  if (props.error) {
    return (
      <Heading>
        <ErrorText>{WORKSPACE.failedToLoadProjectDetails}</ErrorText>
        <MutedText>{errorMessage(props.error)}</MutedText>
      </Heading>
    );
  }
  return <Spinner label={WORKSPACE.loadingProject} />;
}

const Heading = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1.5)};
  h1 { font-size: ${({ theme }) => theme.fontSizes.xl}; margin: 0; overflow-wrap: anywhere; }
`;

const Nav = styled.nav`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
`;

const NavItem = styled(NavLink)`
  display: block;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  color: ${({ theme }) => theme.colors.text};
  text-decoration: none;
  &:hover { background: ${({ theme }) => theme.colors.surfaceHover}; }
  &:focus-visible { outline: 2px solid ${({ theme }) => theme.colors.focus}; outline-offset: 1px; }
  &.active {
    background: ${({ theme }) => theme.colors.surfaceRaised};
    box-shadow: inset 3px 0 0 ${({ theme }) => theme.colors.primary};
    font-weight: 600;
  }
`;
