import { LEGACY_STACK_DIR, placeIfValid, STACKS_ROOT, stackDirectoriesIn } from '../offline/stackPlace';
import type { Finding, PlanStepScript } from './types';

/**
 * The stack's folder: every step that names a stack folder (`/opt/stack`, `/opt/stacks/<name>`) names the
 * project's own, and a plan that deploys a compose stack puts it there. A model-written plan can write the
 * legacy shared `/opt/stack` or another project's folder: its `up --remove-orphans` then replaces that
 * stack's containers, and its files overwrite the other's. Compose project names the steps set
 * (`--project-name`, `COMPOSE_PROJECT_NAME=`, a `com.docker.compose.project=` filter) must be the folder's
 * name too, or the commands act on another project's containers. Without the project's folder (a plan
 * verified on its own) the steps must at least agree on one folder.
 */

/** Compose project names a step sets or filters on. */
const PROJECT_NAMED = /(?:--project-name[= ]|(?<![A-Za-z0-9_])COMPOSE_PROJECT_NAME=|com\.docker\.compose\.project=)['"]?([a-z0-9][a-z0-9_-]*)/g;

/** Why a folder that is not the project's is wrong, in the person's terms. */
function whose(folder: string): string {
  if (folder === LEGACY_STACK_DIR) return `${LEGACY_STACK_DIR} is the folder every stack shared before each project had its own`;
  if (folder.startsWith(`${STACKS_ROOT}/`)) return `${folder} is another project's folder: this deploy would overwrite its files and replace its containers`;
  return `${folder} is not this project's folder`;
}

export function stackFolderFindings(steps: PlanStepScript[], stackDirectory: string | undefined, deploysCompose: boolean): Finding[] {
  if (!steps.length) return [];
  const own = stackDirectory ? placeIfValid(stackDirectory) : undefined;
  const findings: Finding[] = [];
  const named = steps.map((s) => ({ step: s, folders: stackDirectoriesIn(s.script), projects: [...new Set([...s.script.matchAll(PROJECT_NAMED)].map((m) => m[1]!))] }));
  // The folder the steps are held to: the project's, else the first one a step names.
  const expected = own?.dir ?? named.find((n) => n.folders.length)?.folders[0];
  if (!expected) return [];
  const project = placeIfValid(expected)?.project;
  for (const { step, folders, projects } of named) {
    for (const folder of folders.filter((f) => f !== expected)) {
      findings.push({
        severity: 'error',
        code: 'stack-folder',
        message: own ? `puts the stack in ${folder}, not in the project's folder ${expected}: ${whose(folder)}` : `works in ${folder}, while an earlier step put the stack in ${expected}: a stack has one folder`,
        where: `Step ${step.number} (${step.title})`,
      });
    }
    for (const name of projects.filter((p) => project && p !== project)) {
      findings.push({
        severity: 'error',
        code: 'stack-folder',
        message: `acts on the compose project ${name}, not on ${project} (the name of the stack's folder ${expected}): its commands would reach another stack's containers`,
        where: `Step ${step.number} (${step.title})`,
      });
    }
  }
  if (own && deploysCompose && !named.some((n) => n.folders.includes(own.dir))) {
    findings.push({ severity: 'error', code: 'stack-folder', message: `no step puts the stack in the project's folder ${own.dir} on the server: copy the stack there and run compose in it`, where: 'implementation plan' });
  }
  return findings;
}
