import type { Project } from '../../../shared/api/projects';

/** Part 1 section 5: search is case-insensitive on name and description. */
export function filterProjects(projects: readonly Project[], query: string): Project[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [...projects];
  return projects.filter(
    (project) =>
      project.name.toLowerCase().includes(needle) || (project.description ?? '').toLowerCase().includes(needle),
  );
}
