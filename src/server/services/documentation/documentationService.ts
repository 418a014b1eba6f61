import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projectDocumentation, projects } from '../../db/schema';
import { documentRedactor, textRedactor } from '../../sandbox/redactor';
import type { DocumentationResponse } from '../../../shared/api/documentation';
import { DOCUMENTATION } from '../../../shared/constants/documentation';
import type { ContainerStatusResponse } from '../../../shared/api/sandbox';
import type { Step } from '../../../shared/api/execution';
import type { StepProject } from '../steps/stepRuns';
import { conflict } from '../../errors';
import { undocumentedReason } from '../stages/stageGates';
import { evidenceOf, latestReadback, renderedFromServer, serverKeyValues, serverSection, serverSummary, withServer, type ReadBack } from './serverSections';
import { basisOf, changesSince, outOfDateNote, resultsSection, resultsSummary, withResults } from './validationResults';

export interface DocumentationDeps {
  db: Db;
  /** The sandbox's username names the workspace folder (SandboxService narrowed). */
  sandbox: { containerStatus(project: { id: number; installationId: number }): Promise<ContainerStatusResponse> };
  planning: {
    requirements(projectId: number): Promise<{ content: string }>;
    plan(projectId: number, kind: 'architecture' | 'implementation'): Promise<{ plan: string }>;
    /** The values that are secrets (a host or a port the person wrote is not), blanked from the documents. */
    hiddenValues(projectId: number): Promise<Record<string, string>>;
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
  /** What the read-back check found on the server (facts and files as deployed), as the documents show it. */
  server: string;
}

const PLACEHOLDER_DOCUMENTATION = DOCUMENTATION.documentationPlaceholders[0];
const PLACEHOLDER_QUICKSTART = DOCUMENTATION.quickstartPlaceholders[0];

/** The validation facts of `key_value_data`, from the latest results (rendered when read, never stored stale). */
function liveValidationFacts(steps: Step[]): Record<string, unknown> {
  const times = steps.map((s) => s.finished_at).filter((t): t is string => Boolean(t)).sort();
  const failed = steps.filter((s) => s.status === 'failed').map((s) => s.step_number);
  return {
    validation_steps_completed: `${steps.filter((s) => s.status === 'completed').length} / ${steps.length}`,
    ...(times.length ? { validation_last_checked_at: times.at(-1) } : {}),
    ...(failed.length ? { validation_failed_checks: failed } : {}),
  };
}

/**
 * The latest read-back of the server among the validation checks, its files blanked of whole secret values
 * (a password written into a configuration file); the check's command was stored blanked as step commands are.
 */
function readbackOf(steps: Step[], secrets: string[]): ReadBack | undefined {
  const readback = latestReadback(steps, textRedactor(secrets));
  if (!readback) return undefined;
  const redact = documentRedactor(secrets);
  return { ...readback, files: readback.files.map((f) => ({ ...f, content: redact(f.content) })) };
}

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
    return {
      sandbox_username: username,
      workspace_directory: workspace,
      workspace_folders: { ssh_keys: `${workspace}/ssh-keys`, terraform: `${workspace}/terraform`, ansible: `${workspace}/ansible`, stack: `${workspace}/stack` },
      execution_steps_completed: `${sources.executed.filter((s) => s.status === 'completed').length} / ${sources.executed.length}`,
      ...liveValidationFacts(sources.validated),
      user_secret_names: secretNames,
    };
  }

  return {
    /** 409 while validation has a check without a result (the server's record): nothing verified to state. */
    async assertDocumentable(projectId: number): Promise<void> {
      const refusal = undocumentedReason((await deps.validation.steps(projectId)).steps);
      if (refusal) throw conflict(refusal);
    },

    /**
     * The documentation as read now: the stored texts with the latest validation results rendered in (each
     * check's result and time, from the server's record), an out-of-date note first when a result differs
     * from those the texts were written from, and the live validation facts in `key_value_data`.
     */
    async current(projectId: number): Promise<DocumentationResponse> {
      const [[row], { steps }, { steps: executed }, hidden] = await Promise.all([
        db.select().from(projectDocumentation).where(eq(projectDocumentation.projectId, projectId)),
        deps.validation.steps(projectId),
        deps.execution.steps(projectId),
        planning.hiddenValues(projectId),
      ]);
      const readback = readbackOf(steps, Object.values(hidden));
      // What the server said and the steps that ran decide what the texts may claim; the files shown are those read back.
      const evidence = evidenceOf(executed, readback);
      const fromServer = (text: string): string => renderedFromServer(text, evidence, readback !== undefined);
      const written = row?.writtenAt?.toISOString() ?? null;
      const changes = written && row?.validationBasis ? changesSince(row.validationBasis, steps) : [];
      const outOfDate = written && changes.length ? outOfDateNote(written, changes) : null;
      const stored = { documentation: row?.documentation.trim() ? row.documentation : '', quickstart: row?.quickstart.trim() ? row.quickstart : '' };
      const [results, summary] = [resultsSection(steps), resultsSummary(steps)];
      const documentation = stored.documentation ? withServer(withResults(fromServer(stored.documentation), results, outOfDate), serverSection(readback, executed), results) : PLACEHOLDER_DOCUMENTATION;
      const quickstart = stored.quickstart ? withServer(withResults(fromServer(stored.quickstart), summary, outOfDate), serverSummary(readback), summary) : PLACEHOLDER_QUICKSTART;
      const ready = Boolean(stored.documentation && stored.quickstart);
      const keyValue = row?.keyValueData ?? {};
      return {
        status: row?.status === 'generating' ? 'generating' : ready ? 'ready' : 'missing',
        documentation,
        quickstart,
        key_value_data: Object.keys(keyValue).length ? { ...keyValue, ...liveValidationFacts(steps), ...serverKeyValues(readback), ...(written ? { documentation_written_at: written } : {}) } : {},
        written_at: written,
        out_of_date: outOfDate,
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
        server: serverSection(readbackOf(validated.steps, Object.values(await planning.hiddenValues(project.projectId))), executed.steps),
      };
    },

    /** Whether the agent ever saved the documentation (a turn that must write it is told once, then fails). */
    async written(projectId: number): Promise<boolean> {
      const [row] = await db.select({ writtenAt: projectDocumentation.writtenAt }).from(projectDocumentation).where(eq(projectDocumentation.projectId, projectId));
      return Boolean(row?.writtenAt);
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
      // A document, like a plan: whole secret values and sealed references are blanked, not every 8-character run
      // of one (a password holding "postgres" blanked the word in its diagram and broke it).
      const redact = documentRedactor(Object.values(await planning.hiddenValues(project.projectId)));
      const { steps } = await deps.validation.steps(project.projectId);
      const row = {
        documentation: redact(texts.documentation),
        quickstart: redact(texts.quickstart),
        keyValueData: JSON.parse(redact(JSON.stringify(keyValue))) as Record<string, unknown>,
        // What the texts were written from: a later result that differs makes them out of date.
        writtenAt: new Date(),
        validationBasis: basisOf(steps),
      };
      await db
        .insert(projectDocumentation)
        .values({ projectId: project.projectId, status: 'idle', ...row })
        .onConflictDoUpdate({ target: projectDocumentation.projectId, set: { ...row, updatedAt: sql`now()` } });
    },
  };
}

export type DocumentationService = ReturnType<typeof createDocumentationService>;
