import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { plan, TOOL_NAMES } from '../../../src/server/agents/offline/planner';
import { createLocalRepositories } from '../../../src/server/services/repositories/localRepositories';
import { inspectRepository, type Inspection } from '../../../src/server/services/repositories/repositoryInspector';
import { composeSpecErrors, dockerComposeAvailable, dockerComposeConfig } from './composeChecks';
import { makeRepository, type Files } from './gitRepos';

/**
 * The files of real public repositories (test/server/fixtures/repositories) made into git repositories,
 * read the way the analysis reads them (snapshot of a branch, inspection), and planned by the offline
 * planner's three agents with that analysis, as the server gives it to them.
 */

export const FIXTURES = path.resolve(__dirname, '../fixtures/repositories');

export function filesOf(dir: string, base = dir): Files {
  const out: Files = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, filesOf(full, base));
    else out[path.relative(base, full)] = fs.readFileSync(full, 'utf8');
  }
  return out;
}

let tmp: string | undefined;
/** Removes the git repositories made so far (call from afterAll). */
export function removeFixtureRepositories(): void {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
}

/**
 * The fixture as a git repository on `branch` (minus `without`), inspected as the analysis does; `name`
 * is the repository's name the analysis is told (the repository picker's).
 */
export async function analyse(fixture: string, branch: string, without: string[] = [], name?: string, fullName?: string): Promise<Inspection> {
  tmp ??= fs.mkdtempSync(path.join(os.tmpdir(), 'da-repo-plans-'));
  const files = Object.fromEntries(Object.entries(filesOf(path.join(FIXTURES, fixture))).filter(([p]) => !without.includes(p)));
  const repo = `${fixture}-${branch}-${without.length}`;
  // Made once per fixture, branch and omission; later tests read the same repository.
  if (!fs.existsSync(path.join(tmp, repo))) makeRepository(path.join(tmp, repo), [{ name: branch, files }]);
  const snapshot = await createLocalRepositories(tmp).snapshot({ installationId: 1, publicInstallationId: 1 }, `local/${repo}`, branch);
  return inspectRepository(snapshot, null, name ? { branch, name, ...(fullName ? { fullName } : {}) } : {});
}

export interface Planned {
  inspection: Inspection;
  requirements: string;
  architecture: string;
  implementation: string;
  compose: string;
  services: Record<string, { image?: string; build?: { context: string; dockerfile?: string }; environment?: Record<string, string>; env_file?: unknown; [k: string]: unknown }>;
  secrets: string[];
}

/** The three agents' plans for an analysed repository named `fullName`, with the analysis in their prompts. */
export function planFor(inspection: Inspection, fullName: string, branch: string, envNames: string[] = []): Omit<Planned, 'inspection'> {
  const analysis = JSON.stringify({
    repository: { full_name: fullName, default_branch: branch },
    branch,
    repo_analysis: { technology_stack: inspection.technology_stack },
    files: inspection.files,
    env_names: envNames,
    layout: inspection.layout,
  });
  const block = `<repository_analysis>\n${analysis}\n</repository_analysis>`;
  const turns = [{ role: 'user' as const, content: 'On my existing server deploy@203.0.113.7, no domain, light load. Go with sensible defaults for everything else.' }];
  const req = plan(`Role: requirements\n${block}`, turns).toolCalls.find((c) => c.name === TOOL_NAMES.requirements)!.args;
  const requirements = req.document as string;
  const arch = plan(`Role: architect\n<requirements_document>\n${requirements}\n</requirements_document>\n${block}`, [{ role: 'user', content: 'Generate architecture plan' }]);
  const architecture = arch.toolCalls[0]!.args.plan as string;
  const impl = plan(
    `Role: implementation\n<requirements_document>\n${requirements}\n</requirements_document>\n${block}\n<architecture_plan>\n${architecture}\n</architecture_plan>`,
    [{ role: 'user', content: 'Generate implementation plan' }],
  );
  const implementation = impl.toolCalls[0]!.args.plan as string;
  const compose = architecture.match(/## docker-compose.yml\n\n```yaml\n([\s\S]*?)\n```/)?.[1] ?? '';
  return {
    requirements,
    architecture,
    implementation,
    compose,
    services: (YAML.parse(compose) as { services: Planned['services'] }).services,
    secrets: (req.secrets as Array<{ name: string }>).map((s) => s.name),
  };
}

const withDockerCompose = dockerComposeAvailable();
/** The compose file passes the Compose schema and `docker-compose config`, with the checkout's files beside it. */
export function expectAccepted(compose: string, fixture: string): void {
  expect(composeSpecErrors(YAML.parse(compose))).toEqual([]);
  const checkout = Object.entries(filesOf(path.join(FIXTURES, fixture))).map(([p, content]) => ({ path: `app/${p}`, content }));
  if (withDockerCompose) expect(dockerComposeConfig(compose, checkout)).toBe('');
}

