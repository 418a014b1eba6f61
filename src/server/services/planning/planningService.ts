import type { Db } from '../../db/client';
import type { AgentName, ModelProvider } from '../../agents/models';
import { CONTINUE_PROMPT } from '../../agents/toolNames';
import { createTurnSession, NO_STATE, type StartedTurn, type TurnMeter, type TurnProject } from '../../agents/turnSession';
import { NO_ANALYSIS_MESSAGE } from '../../../shared/constants/planning';
import type { AnalysisResponse, PlanFinding, RepositoryAnalysis } from '../../../shared/api/planning';
import type { ChatThreadResponse } from '../../../shared/api/common';
import { isRequirementsComplete } from '../../../shared/requirementsDocument';
import type { EventBus } from '../events/eventBus';
import { createUserSecrets } from '../userSecrets/userSecrets';
import type { SecretBox } from '../userSecrets/secretBox';
import { createPlanningDocuments } from './planningDocuments';
import { createPlanVerification } from './planVerification';
import { planningPrompt, type PlanningAgent, type PlanningWorkspace } from './agents/planningAgent';
import { requirementsAgent } from './agents/requirementsAgent';
import { analyzerAgent } from './agents/analyzerAgent';
import { architectAgent } from './agents/architectAgent';
import { implementationAgent } from './agents/implementationAgent';
import { createStackEditing, STACK_CATALOGUE } from './stackEditing';
import type { StackResponse } from '../../../shared/api/stack';
import { modelWithOthersOnServer } from '../releases/othersOnServer';
import { projectPlace } from '../releases/projectPlace';
import { SECRETS_TARGET } from '../serverReadback/inspectionCommand';

/** A turn ready to stream: the thread is resolved and the turn registered before any byte is sent. */
export type AgentTurn = StartedTurn;

const PLANNING_AGENTS: Record<AgentName, PlanningAgent> = {
  requirements: requirementsAgent,
  analyzer: analyzerAgent,
  architect: architectAgent,
  implementation: implementationAgent,
};

/** The part of a repository analysis the server reads itself (the analyzer route provides it). */
export interface RepositoryFacts {
  repository: RepositoryAnalysis['repository'];
  branch: string;
  technology_stack: Record<string, unknown>;
  files: string[];
  env_names: string[];
  env_content_summary: string | null;
  /** The repository's compose file and Dockerfiles (services/repositories/repositoryLayout). */
  layout?: unknown;
}

export interface PlanningDeps {
  db: Db;
  models: ModelProvider;
  secretBox: SecretBox;
  /** The credits meter: every model call priced and charged, a turn refused with 402 at a spent balance. */
  meter: TurnMeter;
  /** The app's event bus: a changed document moves its project in the list (PROJECT_TOUCHED_TOPIC). */
  events?: EventBus<unknown>;
}

/**
 * The planning stages: the four planning agents (each on the one turn session), the documents they
 * write, and the user secrets the plans need. Every method takes a project already scoped to the caller.
 */
export function createPlanningService(deps: PlanningDeps) {
  const { db, models } = deps;
  // The secrets and the documents read each other (a plan seals secrets; the analysis declares some).
  const documents = createPlanningDocuments({ db, sealableValues: (projectId) => secrets.sealableValues(projectId), ...(deps.events ? { events: deps.events } : {}) });
  const secrets = createUserSecrets({
    db,
    secretBox: deps.secretBox,
    async analysed(projectId) {
      const analysis = (await documents.analysis(projectId)) as { env_names?: string[] } | undefined;
      return analysis ? { envNames: analysis.env_names ?? [] } : undefined;
    },
  });
  const verification = createPlanVerification({ db, documents, secrets, stackModel: async (projectId) => (await stackEditing.read(projectId)).model });

  /** Saves the requirements document with the secrets it declares: the agent's tool, the panel and a model's stack operations. */
  async function saveRequirements(projectId: number, args: { document: string; secrets?: unknown; ready: boolean }): Promise<void> {
    await secrets.declareSecrets(projectId, args.secrets ?? []);
    await documents.put(projectId, 'requirements', args.document, args.ready);
  }

  const stackEditing = createStackEditing({
    db,
    saveRequirements,
    wasReady: async (projectId) => (await documents.get(projectId, 'requirements'))?.ready ?? false,
    // The saved plans were verified against what was known of the server then: their findings follow the facts.
    factsChanged: async (projectId) => {
      await verification.recheck(projectId);
    },
  });
  const workspace: PlanningWorkspace = { documents, secrets, verification, stackEditing, saveRequirements };

  async function contextOf(projectId: number) {
    const [docs, list, project, stack, place] = await Promise.all([
      documents.many(projectId, ['requirements', 'analysis', 'architecture', 'implementation']),
      secrets.listSecrets(projectId),
      db.query.projects.findFirst({ where: (p, { eq: is }) => is(p.id, projectId) }),
      stackEditing.read(projectId),
      projectPlace(db, projectId),
    ]);
    // The project's own containers from an earlier deploy hold no port against its next plan.
    const model = modelWithOthersOnServer(stack.model, place.project);
    return {
      stackEdits: stack.edits.length ? JSON.stringify(stack.edits.map((e) => (e.after === undefined ? e.op : { op: e.op, after: e.after }))) : undefined,
      stackModel: stack.stale || !model.components.length ? undefined : JSON.stringify(model),
      serverFacts: model.serverFacts ? JSON.stringify(model.serverFacts) : undefined,
      projectName: project?.name,
      stackDirectory: place.dir,
      requirements: docs.requirements?.content,
      analysis: docs.analysis?.content,
      architecture: docs.architecture?.content,
      implementation: docs.implementation?.content,
      secrets: list,
    };
  }

  const sessionOf = (agent: PlanningAgent) =>
    createTurnSession({
      db,
      meter: deps.meter,
      model: () => models.forAgent(agent.name),
      usageAgent: agent.usageAgent,
      threadAgent: agent.name,
      tools: agent.tools,
      hiddenValues: (projectId) => secrets.hiddenValues(projectId),
      prepare: NO_STATE,
      ...(agent.admit ? { admit: (project: TurnProject) => agent.admit!(workspace, project) } : {}),
      onTurn: (project, phase) => (phase === 'started' ? agent.onStart?.(workspace, project) : undefined),
      systemPrompt: async ({ project }) => planningPrompt(agent, await contextOf(project.projectId)),
      runTool: ({ project }, call) => agent.runTool(workspace, project.projectId, call.name, call.args),
      defaultMessage: CONTINUE_PROMPT,
      hiddenMessages: [CONTINUE_PROMPT],
      ...(agent.required
        ? { required: { tool: agent.required.tool, missing: agent.required.missing, exists: (project: TurnProject) => agent.required!.exists(workspace, project.projectId) } }
        : {}),
      recursionLimit: 12,
      keepPartialOnStop: true,
    });
  const sessions = Object.fromEntries(Object.entries(PLANNING_AGENTS).map(([name, agent]) => [name, sessionOf(agent)])) as Record<AgentName, ReturnType<typeof sessionOf>>;

  /** The requirements document as the person reads it (secrets in it blanked). */
  async function requirementsShown(projectId: number): Promise<{ content: string; ready_to_continue: boolean }> {
    const doc = await documents.get(projectId, 'requirements');
    if (!doc) return { content: '', ready_to_continue: false };
    return { content: await documents.shown(projectId, doc.content), ready_to_continue: doc.ready && isRequirementsComplete(doc.content) };
  }

  return {
    /**
     * Starts an agent turn (agents/turnSession.ts): 402 at a spent balance, 409 from the implementation
     * planner without an architecture plan, 404 for a thread not this project's and agent's, 409 while a
     * turn runs on the thread; always a new thread with `fresh`.
     */
    startTurn(agent: AgentName, ctx: TurnProject, body: { message: string; thread_id?: string }, options: { fresh?: boolean } = {}): Promise<AgentTurn> {
      return sessions[agent].startTurn(ctx, body, options);
    },

    /** Aborts the running generation of the given turn (the client went away). */
    abortTurn(threadId: string): void {
      for (const session of Object.values(sessions)) session.abortTurn(threadId);
    },

    /** Stops every generation running for the project at once; what was said stays in the threads. */
    kill(ctx: TurnProject): 'stopped' | 'idle' {
      const stopped = Object.values(sessions).map((session) => session.kill(ctx));
      return stopped.includes('stopped') ? 'stopped' : 'idle';
    },

    /** The conversation of an agent (its latest thread), for reloading the chat. */
    thread(projectId: number, agent: AgentName): Promise<ChatThreadResponse> {
      return sessions[agent].thread({ projectId });
    },

    requirements: requirementsShown,

    /** The project's stack model, the catalogue to add from, and the requirements rendered from it. */
    async stack(projectId: number): Promise<StackResponse> {
      const { model } = await stackEditing.read(projectId);
      const { content, ready_to_continue } = await requirementsShown(projectId);
      return { model, catalogue: STACK_CATALOGUE, requirements: content, ready_to_continue };
    },

    /** Applies the panel's stack operations (all or none; 400 with why), then answers as `stack`. */
    async editStack(projectId: number, ops: unknown[]): Promise<StackResponse> {
      const { model } = await stackEditing.apply(projectId, ops, 'panel');
      const { content, ready_to_continue } = await requirementsShown(projectId);
      return { model, catalogue: STACK_CATALOGUE, requirements: content, ready_to_continue };
    },

    async analysis(projectId: number): Promise<AnalysisResponse> {
      return (await documents.analysis(projectId)) ?? { message: NO_ANALYSIS_MESSAGE };
    },

    /** A plan as stored, its secrets sealed: what steps are made from (never sent to a client as it is). */
    async plan(projectId: number, kind: 'architecture' | 'implementation'): Promise<{ plan: string }> {
      return { plan: (await documents.get(projectId, kind))?.content ?? '' };
    },

    /** The architecture plan as the person reads it (secrets in it blanked), with the verifier's findings. */
    async architecturePlan(projectId: number): Promise<{ plan: string; findings?: PlanFinding[] }> {
      const plan = await documents.shown(projectId, (await documents.get(projectId, 'architecture'))?.content ?? '');
      const findings = plan ? await verification.shownFindings(projectId, 'architecture') : undefined;
      return { plan, ...(findings ? { findings } : {}) };
    },

    /**
     * The implementation plan, `outdated` when the architecture plan was saved after it (the person
     * changed the architecture after the implementation was planned): it must be generated again.
     */
    async implementationPlan(projectId: number): Promise<{ plan: string; outdated: boolean; findings?: PlanFinding[] }> {
      const { implementation, architecture } = await documents.many(projectId, ['architecture', 'implementation']);
      if (!implementation) return { plan: '', outdated: false };
      const findings = await verification.shownFindings(projectId, 'implementation');
      return {
        plan: await documents.shown(projectId, implementation.content),
        outdated: Boolean(architecture && architecture.updatedAt > implementation.updatedAt),
        ...(findings ? { findings } : {}),
      };
    },

    listSecrets: secrets.listSecrets,
    /** Stores one secret value; a new SERVER_HOST or SERVER_USER makes what was found of the server they named unknown again. */
    async saveSecret(projectId: number, name: string, value: string): ReturnType<typeof secrets.saveSecret> {
      const statuses = await secrets.saveSecret(projectId, name, value);
      if (name === SECRETS_TARGET.hostVar || name === SECRETS_TARGET.userVar) await stackEditing.forgetSecretsServerFacts(projectId);
      return statuses;
    },
    secretValues: secrets.secretValues,
    hiddenValues: secrets.hiddenValues,
    sealableValues: secrets.sealableValues,
    storeAnalysisSecrets: secrets.storeAnalysisSecrets,

    /** Stores what the server read of a repository, before the analyzer agent describes it. */
    async putRepositoryFacts(projectId: number, facts: RepositoryFacts): Promise<void> {
      const analysis: RepositoryAnalysis = {
        repository: facts.repository,
        repo_analysis: { technology_stack: facts.technology_stack },
        environment: { env_content_summary: facts.env_content_summary },
        user_questions: { reason: '', questions: {} },
        deployment_plan: { prerequisites: [], deployment_steps: [], post_deployment: [], scaling_considerations: [] },
        analysis: '',
        message: 'Analysis in progress',
      };
      await documents.put(projectId, 'analysis', JSON.stringify({ ...analysis, branch: facts.branch, files: facts.files, env_names: facts.env_names, layout: facts.layout }));
    },
  };
}

export type PlanningService = ReturnType<typeof createPlanningService>;
