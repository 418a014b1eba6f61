import type { ReactElement } from 'react';
import { RecentActivity } from '../features/activity/RecentActivity';
import { CreditsButton } from '../features/credits/CreditsButton';
import { ProjectsHome } from '../features/projects/ProjectsHome';

/** /app: the projects home with the credits button and recent activity of their own features (one chunk, as before). */
export function ProjectsHomeRoute(): ReactElement {
  return <ProjectsHome credits={<CreditsButton />} activity={<RecentActivity />} />;
}
