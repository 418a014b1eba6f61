import type { SandboxRef } from '../driver';

/** Label of every object the docker driver makes: the server instance that owns it. */
export const INSTANCE_LABEL = 'devops-agents.instance';
/** Label of every object the docker driver makes: the project it belongs to. */
export const PROJECT_LABEL = 'devops-agents.project';

/**
 * Names and labels of a project's engine objects. They carry the server instance's id (kept in its
 * database), so that two servers sharing one engine never see, reuse or remove each other's sandboxes.
 *
 * @example
 *   dockerNames('devops-agents', '3fa9c1d2').container({ projectId: 7, username: 'user_3_7' })
 *   // 'devops-agents-3fa9c1d2-7'
 */
export function dockerNames(prefix: string, instanceId: string) {
  const base = (s: SandboxRef): string => `${prefix}-${instanceId}-${s.projectId}`;
  return {
    container: base,
    volume: (s: SandboxRef): string => `${base(s)}-workspace`,
    network: (s: SandboxRef): string => `${base(s)}-net`,
    /** A one-shot root container doing one fixed job for the sandbox (`volume`, `egress`, `addresses`). */
    helper: (s: SandboxRef, job: string): string => `${base(s)}-${job}`,
    labels: (s: SandboxRef): Record<string, string> => ({ [INSTANCE_LABEL]: instanceId, [PROJECT_LABEL]: String(s.projectId) }),
  };
}

export type DockerNames = ReturnType<typeof dockerNames>;
