import { Suspense, useState, type ReactElement, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import styled from 'styled-components';
import type { Project } from '../../../shared/api/projects';
import type { Stage } from '../../../shared/api/stages';
import { PRODUCT_NAME, WORKSPACE } from '../../../shared/constants';
import { errorMessage, errorStatus } from '../../api/apiSlice';
import { Button } from '../../common/components/Button';
import { ButtonRow, Card, CenteredPage } from '../../common/components/Card';
import { ErrorBoundary } from '../../common/components/ErrorBoundary';
import { ErrorText } from '../../common/components/Field';
import { CollapsibleSidebar } from '../../common/components/CollapsibleSidebar';
import { Main, MutedText, Shell, SidebarFooter } from '../../common/components/Layout';
import { Centered, Spinner } from '../../common/components/Spinner';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { UserProfile } from '../../common/auth/UserProfile';
import { projectFromState } from '../../common/navigationState';
import { ProjectNotFound } from '../../common/projects/ProjectNotFound';
import { useGetProjectQuery } from '../../common/projects/projectsApi';
import { ProjectCost } from '../../common/costs/ProjectCost';
import { StageList } from './components/StageList';
import { isAgentId, STAGE_PANELS } from '../../app/stagePanels';
import { useGetProjectStateQuery, useSetCurrentStageMutation } from '../../common/stages/stagesApi';

const PROJECT_ID = /^\d{1,15}$/;

/** The enabled stages in workflow order. */
export function enabledStages(stages: readonly Stage[]): Stage[] {
  return stages.filter((stage) => stage.is_enabled).sort((a, b) => a.order - b.order);
}

/** Part 1 section 2: an index past the enabled stages is clamped to the last one. */
export function clampStageIndex(index: number, count: number): number {
  if (count === 0) return -1;
  return Math.min(Math.max(index, 0), count - 1);
}

/** /app/{projectId}: the staged workflow (part 1 section 2, "Project workspace"). */
export function StagedWorkflowPage(): ReactElement {
  const { projectId = '' } = useParams();
  if (!PROJECT_ID.test(projectId)) {
    return (
      <Notice title={WORKSPACE.invalidProjectIdFull(projectId)} role="alert">
        <ReturnToProjects />
      </Notice>
    );
  }
  return <Workspace projectId={Number(projectId)} />;
}

function Workspace({ projectId }: { projectId: number }): ReactElement {
  const location = useLocation();
  const stateProject = projectFromState(location.state, projectId);
  const projectQuery = useGetProjectQuery(projectId, { skip: stateProject !== null });
  const project = stateProject ?? projectQuery.data;
  useDocumentTitle(project ? `${project.name} - ${PRODUCT_NAME}` : PRODUCT_NAME);

  if (!project) {
    if (projectQuery.error) {
      if (errorStatus(projectQuery.error) === 404) return <ProjectNotFound />;
      return (
        <Notice title={WORKSPACE.failedToLoadProjectDetails} role="alert">
          <MutedText>{errorMessage(projectQuery.error)}</MutedText>
          <ReturnToProjects />
        </Notice>
      );
    }
    return (
      <Centered>
        <Spinner label={WORKSPACE.loadingProject} />
      </Centered>
    );
  }
  return <WorkspaceFrame projectId={projectId} project={project} />;
}

function WorkspaceFrame({ projectId, project }: { projectId: number; project: Project }): ReactElement {
  const { data: projectState, isLoading, error } = useGetProjectStateQuery(projectId);
  const [setCurrentStage, { isLoading: switching, error: switchError }] = useSetCurrentStageMutation();
  const stages = enabledStages(projectState?.stages ?? []);
  const currentIndex = clampStageIndex(projectState?.current_stage_index ?? 0, stages.length);
  const currentStage: Stage | undefined = stages[currentIndex];

  const [menuOpen, setMenuOpen] = useState(false);

  const onSelect = (stage: Stage, index: number): void => {
    // On a phone the stage list folds away again: the person chose where to work.
    setMenuOpen(false);
    if (index === currentIndex) return;
    void setCurrentStage({ projectId, stageId: stage.stage_id });
  };

  let content: ReactNode;
  if (isLoading) {
    content = <Spinner label={WORKSPACE.loadingProjectShort} />;
  } else if (error) {
    content = (
      <Card role="alert">
        <h2>{WORKSPACE.failedToLoadProjectData}</h2>
        <MutedText>{errorMessage(error)}</MutedText>
      </Card>
    );
  } else if (stages.length === 0) {
    content = <EmptyState title={WORKSPACE.noStagesConfigured} />;
  } else if (!currentStage) {
    content = <EmptyState title={WORKSPACE.noStageSelected} />;
  } else {
    content = <StagePanel projectId={projectId} project={project} stage={currentStage} stages={stages} />;
  }

  return (
    <Shell>
      <CollapsibleSidebar
        label="Workspace"
        toggleLabel="Stages"
        open={menuOpen}
        onOpenChange={setMenuOpen}
        heading={
          <ProjectHeading>
            <h1>{project.name}</h1>
            {project.description && <MutedText>{project.description}</MutedText>}
          </ProjectHeading>
        }
      >
        <nav aria-label="Workflow stages">
          {isLoading ? (
            <Spinner label="Loading stages..." />
          ) : (
            <StageList stages={stages} currentIndex={currentIndex} onSelect={onSelect} busy={switching} />
          )}
          {switchError && <ErrorText>{errorMessage(switchError)}</ErrorText>}
        </nav>
        <ProjectCost projectId={projectId} />
        <Link to="/">{WORKSPACE.returnToProjects}</Link>
        <SidebarFooter>
          <UserProfile />
        </SidebarFooter>
      </CollapsibleSidebar>
      <Main>{content}</Main>
    </Shell>
  );
}

/** The current stage's panel, loaded from its own chunk; an unknown agent gets a plain notice. */
function StagePanel(props: { projectId: number; project: Project; stage: Stage; stages: Stage[] }): ReactElement {
  const agentId = props.stage.agent_id;
  if (!agentId) return <EmptyState title={WORKSPACE.noAgentConfigured} />;
  if (!isAgentId(agentId)) return <EmptyState title={WORKSPACE.unknownAgentType} detail={agentId} />;
  const Panel = STAGE_PANELS[agentId];
  return (
    <ErrorBoundary
      resetKey={props.stage.stage_id}
      fallback={<EmptyState title="This stage could not be shown" detail="Reload the page to try again." />}
    >
      <Suspense fallback={<Spinner label={`Loading ${props.stage.name}...`} />}>
        <Panel {...props} />
      </Suspense>
    </ErrorBoundary>
  );
}

function EmptyState({ title, detail }: { title: string; detail?: string }): ReactElement {
  return (
    <Card>
      <h2>{title}</h2>
      {detail && <MutedText>{detail}</MutedText>}
    </Card>
  );
}

function ReturnToProjects(): ReactElement {
  const navigate = useNavigate();
  return (
    <ButtonRow>
      <Button $variant="primary" onClick={() => navigate('/app')}>
        {WORKSPACE.returnToProjects}
      </Button>
    </ButtonRow>
  );
}

function Notice({ title, role, children }: { title: string; role?: 'alert'; children?: ReactNode }): ReactElement {
  return (
    <CenteredPage>
      <Card role={role}>
        <h1>{title}</h1>
        {children}
      </Card>
    </CenteredPage>
  );
}

const ProjectHeading = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1.5)};
  h1 {
    font-size: ${({ theme }) => theme.fontSizes.xl};
    overflow-wrap: anywhere;
  }
  p { font-size: ${({ theme }) => theme.fontSizes.sm}; overflow-wrap: anywhere; }
`;
