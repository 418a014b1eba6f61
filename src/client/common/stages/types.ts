import type { Project } from '../../../shared/api/projects';
import type { Stage } from '../../../shared/api/stages';

/** What the workspace frame hands to the panel of the current stage. */
export interface StagePanelProps {
  projectId: number;
  project: Project;
  stage: Stage;
  /** The enabled stages in order, as the sidebar shows them. */
  stages: Stage[];
}
