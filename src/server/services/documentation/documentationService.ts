import { eq, max, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projectDocumentation, projects, validationPlans, validationSteps } from '../../db/schema';
import { textRedactor } from '../../sandbox/redactor';
import type { DocumentationResponse } from '../../../shared/api/documentation';
import { DOCUMENTATION } from '../../../shared/constants/documentation';
import type { ContainerStatusResponse } from '../../../shared/api/sandbox';
import type { Step } from '../../../shared/api/execution';
import type { StepProject } from '../shared/stepRuns';
import { conflict } from '../../errors';
import { undocumentedReason } from '../stages/stageGates';

export interface DocumentationDeps {
  db: Db;
  /** The sandbox's username names the workspace folder (SandboxService narrowed). */
  sandbox: { containerStatus(project: { id: number; installationId: number }): Promise<ContainerStatusResponse> };
  planning: {
    requirements(projectId: number): Promise<{ content: string }>;
    plan(projectId: number, kind: 'architecture' | 'implementation'): Promise<{ plan: string }>;
    secretValues(projectId: number): Promise<Record<string, string>>;
    listSecrets(projectId: number): Promise<Array<{ name: string }>>;
  };
  execution: { steps(projectId: number): Promise<{ steps: Step[] }> };
  validation: { steps(projectId: number): Promise<{ steps: Step[] }> };
}

/** What the documentation agent reads: the project's documents, its steps and the non-secret facts. */
export interface DocumentationSources {
  projectName: string;
  requirements: string;
  architecture: string;
  implementation: string;
  executionSteps: Array<Pick<Step, 'step_number' | 'status' | 'description' | 'command'>>;
  validationSteps: Array<Pick<Step, 'step_number' | 'status' | 'description' | 'command'>>;
  keyValueData: Record<string, unknown>;
}

const PLACEHOLDER_DOCUMENTATION = DOCUMENTATION.documentationPlaceholders[0];
const PLACEHOLDER_QUICKSTART = DOCUMENTATION.quickstartPlaceholders[0];

const brief = ({ steps }: { steps: Step[] }) => steps.map(({ step_number, status, description, command }) => ({ step_number, status, description, command }));

/**
 * A project's documentation: written by the documentation agent after validation from the project's
 * requirements, architecture, implementation plan and steps, stored per project with key-value facts
 * that are never secret (workspace folders, counts, secret names), and served by GET
 * /api/documentation/current. Stored texts are redacted of the project's secret values.
 */
export function createDocumentationService(deps: DocumentationDeps) {
  const { db, planning } = deps;

  /** Non-secret facts of the project: its workspace folders, step counts and the names of its secrets. */
  async function keyValueData(project: StepProject, sources: { executed: Step[]; validated: Step[] }): Promise<Record<string, unknown>> {
    const { username } = await deps.sandbox.containerStatus({ id: project.projectId, installationId: project.installationId });
    const workspace = `/home/${username}/workspace`;
    const secretNames = (await planning.listSecrets(project.projectId)).map((s) => s.name);
    // When the checks last ran: the documentation says what was verified and when.
    const [checked] = await db
      .select({ at: max(validationSteps.finishedAt) })
      .from(validationSteps)
      .innerJoin(validationPlans, eq(validationPlans.id, validationSteps.planId))
      .where(eq(validationPlans.projectId, project.projectId));
    return {
      sandbox_username: username,
      workspace_directory: workspace,
      workspace_folders: { ssh_keys: `${workspace}/ssh-keys`, terraform: `${workspace}/terraform`, ansible: `${workspace}/ansible`, stack: `${workspace}/stack` },
      execution_steps_completed: `${sources.executed.filter((s) => s.status === 'completed').length} / ${sources.executed.length}`,
      validation_steps_completed: `${sources.validated.filter((s) => s.status === 'completed').length} / ${sources.validated.length}`,
      ...(checked?.at ? { validation_last_checked_at: checked.at.toISOString() } : {}),
      user_secret_names: secretNames,
    };
  }

  return {
    /** 409 while validation has a check without a result (the server's record): nothing verified to state. */
    async assertDocumentable(projectId: number): Promise<void> {
      const refusal = undocumentedReason((await deps.validation.steps(projectId)).steps);
      if (refusal) throw conflict(refusal);
    },

    async current(projectId: number): Promise<DocumentationResponse> {
      const [row] = await db.select().from(projectDocumentation).where(eq(projectDocumentation.projectId, projectId));
      const documentation = row?.documentation.trim() ? row.documentation : PLACEHOLDER_DOCUMENTATION;
      const quickstart = row?.quickstart.trim() ? row.quickstart : PLACEHOLDER_QUICKSTART;
      const ready = documentation !== PLACEHOLDER_DOCUMENTATION && quickstart !== PLACEHOLDER_QUICKSTART;
      return {
        status: row?.status === 'generating' ? 'generating' : ready ? 'ready' : 'missing',
        documentation,
        quickstart,
        key_value_data: row?.keyValueData ?? {},
      };
    },

    /** Everything the agent writes from, collected once per turn. */
    async sources(project: StepProject): Promise<DocumentationSources> {
      const [name] = await db.select({ name: projects.name }).from(projects).where(eq(projects.id, project.projectId));
      const [requirements, architecture, implementation, executed, validated] = await Promise.all([
        planning.requirements(project.projectId),
        planning.plan(project.projectId, 'architecture'),
        planning.plan(project.projectId, 'implementation'),
        deps.execution.steps(project.projectId),
        deps.validation.steps(project.projectId),
      ]);
      return {
        projectName: name?.name ?? `Project ${project.projectId}`,
        requirements: requirements.content,
        architecture: architecture.plan,
        implementation: implementation.plan,
        executionSteps: brief(executed),
        validationSteps: brief(validated),
        keyValueData: await keyValueData(project, { executed: executed.steps, validated: validated.steps }),
      };
    },

    /** A generation started: `generating` until it ends (the texts so far stay). */
    async begin(projectId: number): Promise<void> {
      await db
        .insert(projectDocumentation)
        .values({ projectId, status: 'generating' })
        .onConflictDoUpdate({ target: projectDocumentation.projectId, set: { status: 'generating', updatedAt: sql`now()` } });
    },

    /** A generation ended (saved or not): no longer `generating`. */
    async end(projectId: number): Promise<void> {
      await db.update(projectDocumentation).set({ status: 'idle', updatedAt: sql`now()` }).where(eq(projectDocumentation.projectId, projectId));
    },

    /** Stores the agent's documentation and quick start (redacted of the project's secret values) with the facts. */
    async save(project: StepProject, texts: { documentation: string; quickstart: string }, keyValue: Record<string, unknown>): Promise<void> {
      const redact = textRedactor(Object.values(await planning.secretValues(project.projectId)));
      const row = { documentation: redact(texts.documentation), quickstart: redact(texts.quickstart), keyValueData: JSON.parse(redact(JSON.stringify(keyValue))) as Record<string, unknown> };
      await db
        .insert(projectDocumentation)
        .values({ projectId: project.projectId, status: 'idle', ...row })
        .onConflictDoUpdate({ target: projectDocumentation.projectId, set: { ...row, updatedAt: sql`now()` } });
    },
  };
}

export type DocumentationService = ReturnType<typeof createDocumentationService>;
