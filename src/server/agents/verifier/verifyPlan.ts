import { acmeFindings } from './acmeReach';
import { backupFindings } from './backupCheck';
import { claimFindings } from './claimCheck';
import { readCompose, type ComposeModel } from './composeModel';
import { composeSchemaFindings } from './composeSchemaCheck';
import { composeSecretFindings, containerSecrets } from './composeSecretCheck';
import { exposureFindings } from './exposureCheck';
import { linkFindings } from './linkCheck';
import { artifactsOfPlans, type PlanTexts } from './planArtifacts';
import { scriptFindings } from './scriptCheck';
import { stackFolderFindings } from './stackFolderCheck';
import type { Finding, PlanArtifacts } from './types';
import { variableFindings } from './variableCheck';

/**
 * The plan verifier: every check family over a plan's rendered artifacts, errors first. A plan with an
 * error is not confirmed; a real model gets the findings back to revise the plan.
 */

export type { Finding, PlanArtifacts } from './types';

export async function verifyArtifacts(artifacts: PlanArtifacts): Promise<Finding[]> {
  const findings: Finding[] = [];
  let compose: ComposeModel | undefined;
  if (artifacts.composeYaml !== undefined) {
    try {
      compose = readCompose(artifacts.composeYaml);
    } catch (err) {
      findings.push({ severity: 'error', code: 'compose-yaml', message: `is not YAML: ${(err as Error).message.split('\n')[0]}`, where: 'docker-compose.yml' });
    }
  }
  if (compose) {
    findings.push(
      ...composeSchemaFindings(compose.raw),
      ...linkFindings(compose, artifacts.files),
      ...exposureFindings(compose, artifacts.files, artifacts.intent, artifacts.target),
      ...variableFindings(compose.raw, artifacts.secrets, artifacts.files),
      ...composeSecretFindings(compose, artifacts.secrets),
      ...backupFindings(compose, artifacts.steps, artifacts.intent?.backupSkip),
      ...acmeFindings(compose, artifacts.files, artifacts.target),
    );
  }
  findings.push(
    ...(await scriptFindings(artifacts.steps, artifacts.secrets, compose ? containerSecrets(compose, artifacts.secrets) : {})),
    ...stackFolderFindings(artifacts.steps, artifacts.stackDirectory, artifacts.composeYaml !== undefined),
    ...claimFindings(artifacts),
  );
  return findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

/** Verifies saved plans (markdown): the architecture alone, or with its implementation plan. */
export function verifyPlans(plans: PlanTexts): Promise<Finding[]> {
  return verifyArtifacts(artifactsOfPlans(plans));
}
