import type { ModelUsage } from '../credits/meter';
import type { BaseMessage } from '@langchain/core/messages';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningDocuments, planningSecrets, tokenUsage } from '../../db/schema';
import { badRequest, conflict, notFound } from '../../errors';
import { DrizzleCheckpointSaver } from '../../agents/checkpointer';
import { buildAgentGraph, type AgentGraph, type AgentRunContext, type AgentWorkspace } from '../../agents/graphs';
import { chatHistory, findThread, resolveThread, streamTurn } from '../../agents/turnLoop';
import type { AgentName, ModelProvider } from '../../agents/models';
import { CONTINUE_PROMPT, TOOL_NAMES } from '../../agents/toolNames';
import { NO_ANALYSIS_MESSAGE, USER_SECRETS } from '../../../shared/constants/planning';
import type { StreamEvent } from '../../../shared/events';
import { toSecretType, type AnalysisResponse, type RepositoryAnalysis, type UserSecret, type UserSecretStatus } from '../../../shared/api/planning';
import { isRequirementsComplete } from '../../../shared/requirementsDocument';
import type { SecretBox } from './secretBox';
import { checkedSshPrivateKey } from './sshPrivateKey';
import { documentRedactor } from '../../sandbox/redactor';
import { sealSecrets } from '../../sandbox/sealedSecrets';
import { resealProject } from './resealSecrets';
import { isSecretVariable, looksLikeCredential } from './secretKinds';
import { PROJECT_TOUCHED_TOPIC, touchProject } from '../projects/touchProject';
import type { EventBus } from '../execution/eventBus';
import { verifyPlans } from '../../agents/verifier/verifyPlan';
import { verifierFactsOf } from '../../agents/verifier/stackModelFacts';
import { readStackModel } from '../../agents/offline/documents';
import type { PlanFinding } from '../../../shared/api/planning';
import { findingsOf, putFindings, type VerifiedPlan } from './planFindings';
import { createStackEditing, STACK_CATALOGUE } from './stackEditing';
import { STACK_EDITS_TAG } from '../../agents/offline/panelEdits';
import type { StackResponse } from '../../../shared/api/stack';

/** One model call's tokens, as the credits meter takes them (`meter.record`); defined once, in the meter. */
export type { ModelUsage };

/** Stage agent ids (ARCHITECTURE.md) of the planning agents, as token_usage records them. */
export const USAGE_AGENT: Record<AgentName, string> = {
  requirements: 'requirementsAgent',
  analyzer: 'repositoryAnalyzerAgent',
  architect: 'cloudArchitectAgent',
  implementation: 'implementationPlanningAgent',
};

type DocumentKind = 'requirements' | 'analysis' | 'architecture' | 'implementation';

const MAX_DOCUMENT = 200_000;
const MAX_SECRETS = 60;
/** Longest answer to an analysis question kept. */
const MAX_ANSWER = 2_000;
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Saves with verifier errors a model is asked to revise in one turn; then the person sees the findings. */
export const MAX_PLAN_REVISIONS = 2;
const SAVE_TOOL: Record<VerifiedPlan, string> = { architecture: TOOL_NAMES.architecture, implementation: TOOL_NAMES.implementation };

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A turn ready to stream: the thread is resolved and the turn registered before any byte is sent. */
export interface AgentTurn {
  threadId: string;
  model: string;
  events: AsyncIterable<StreamEvent>;
}

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
  /**
   * Records one model call. The default stores a token_usage row with cost 0; the credits meter
   * replaces it (`onUsage: (u) => meter.record(u)`) to price the call and charge it.
   */
  onUsage?: (usage: ModelUsage) => Promise<unknown>;
  /**
   * Runs before a turn starts and may refuse it by throwing (the credits meter's `assertCanSpend`
   * answers 402 when the balance is at or below zero). A turn already running always finishes.
   */
  beforeTurn?: (ctx: AgentRunContext & { model: string }) => Promise<void>;
  /** The app's event bus: a changed document moves its project in the list (PROJECT_TOUCHED_TOPIC). */
  events?: EventBus<unknown>;
}

/**
 * The planning stages: agent conversations (streamed, durable, killable), the documents the agents
 * write, and the user secrets the plans need. Every method takes a project already scoped to the caller.
 */
export function createPlanningService(deps: PlanningDeps) {
  const { db, models, secretBox } = deps;
  const onUsage =
    deps.onUsage ??
    (async (u: ModelUsage) => {
      await db.insert(tokenUsage).values({ projectId: u.projectId, agent: u.agent, model: u.model, inputTokens: u.inputTokens, outputTokens: u.outputTokens });
    });
  const checkpointer = new DrizzleCheckpointSaver(db, { secretValues: (projectId) => hiddenValues(projectId) });
  /** Saves with verifier errors in the running turn, by `projectId:plan` (a new turn starts again at 0). */
  const revisions = new Map<string, number>();
  /** Generations running now, by project: aborting them is the kill. */
  const running = new Map<number, Map<string, AbortController>>();

  async function getDocument(projectId: number, kind: DocumentKind): Promise<{ content: string; ready: boolean } | undefined> {
    const [row] = await db
      .select({ content: planningDocuments.content, ready: planningDocuments.ready })
      .from(planningDocuments)
      .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, kind)));
    return row;
  }

  async function putDocument(projectId: number, kind: DocumentKind, text: string, ready = false): Promise<void> {
    if (text.length > MAX_DOCUMENT) throw badRequest(`the ${kind} document is longer than ${MAX_DOCUMENT} characters`);
    // A plan's commands are what approvals run: a secret's value typed into them is stored sealed (by name).
    const content = kind === 'analysis' ? text : sealSecrets(text, await sealableValues(projectId));
    await db
      .insert(planningDocuments)
      .values({ projectId, kind, content, ready })
      .onConflictDoUpdate({ target: [planningDocuments.projectId, planningDocuments.kind], set: { content, ready, updatedAt: new Date() } });
    // A changed document changes the project: its card's 'Last Updated' (and its place in the list) says so.
    const installationId = await touchProject(db, projectId);
    if (installationId !== undefined) deps.events?.publish(PROJECT_TOUCHED_TOPIC, installationId);
  }

  /**
   * Answers given in the requirements chat to the repository analysis's questions, so the analysis shows
   * them answered: only questions the analysis asks, only non-blank answers, each kept short.
   */
  async function recordAnalysisAnswers(projectId: number, answers: unknown): Promise<void> {
    if (typeof answers !== 'object' || answers === null) return;
    const analysis = await analysisOf(projectId);
    if (!analysis) return;
    const questions = { ...analysis.user_questions.questions };
    let changed = false;
    for (const [question, answer] of Object.entries(answers as Record<string, unknown>)) {
      if (!(question in questions) || typeof answer !== 'string' || !answer.trim() || questions[question] === answer.trim()) continue;
      questions[question] = answer.trim().slice(0, MAX_ANSWER);
      changed = true;
    }
    if (changed) await putDocument(projectId, 'analysis', JSON.stringify({ ...analysis, user_questions: { ...analysis.user_questions, questions } }));
  }

  /**
   * Verifies a plan being saved (the implementation with the saved architecture), keeps the findings beside
   * it, and answers what the saving agent reads back: the errors to fix while revisions remain.
   */
  async function verifyAndKeep(projectId: number, plan: VerifiedPlan, text: string): Promise<string> {
    const architecture = plan === 'architecture' ? text : ((await getDocument(projectId, 'architecture'))?.content ?? '');
    const secrets = (await secretRows(projectId)).filter((r) => r.declared || r.name === USER_SECRETS.autoGeneratedName).map((r) => r.name);
    // The stack model a plan carries (the offline planner's do) adds the person's words and the server's facts.
    const model = readStackModel(text) ?? (plan === 'implementation' ? readStackModel(architecture) : undefined);
    const findings = await verifyPlans({ architecture, ...(plan === 'implementation' ? { implementation: text } : {}), secrets, ...verifierFactsOf(model) });
    const values = await sealableValues(projectId);
    await putFindings(db, projectId, plan, findings, (t) => sealSecrets(t, values));
    return toolAnswer(projectId, plan, findings);
  }

  function toolAnswer(projectId: number, plan: VerifiedPlan, findings: PlanFinding[]): string {
    const key = `${projectId}:${plan}`;
    const errors = findings.filter((f) => f.severity === 'error');
    const warnings = findings.length - errors.length;
    const saved = `Saved the ${plan} plan.`;
    if (!errors.length) {
      revisions.delete(key);
      return `${saved} The plan verifier found no error${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'} shown with the plan)` : ''}.`;
    }
    const attempt = (revisions.get(key) ?? 0) + 1;
    revisions.set(key, attempt);
    const list = errors.map((f) => `- [${f.code}] ${f.where}: ${f.message}`).join('\n');
    if (attempt > MAX_PLAN_REVISIONS) {
      return `${saved} The plan verifier still finds ${errors.length} error(s) after ${MAX_PLAN_REVISIONS} revisions; they are shown with the plan and block its confirm:\n${list}\nDo not save again in this turn: tell the person which errors remain and what they can decide.`;
    }
    return `${saved} The plan verifier found ${errors.length} error(s), which block the plan's confirm:\n${list}\nFix every one and call ${SAVE_TOOL[plan]} again with the whole plan (revision ${attempt} of ${MAX_PLAN_REVISIONS}).`;
  }

  async function analysisOf(projectId: number): Promise<RepositoryAnalysis | undefined> {
    const doc = await getDocument(projectId, 'analysis');
    return doc ? (JSON.parse(doc.content) as RepositoryAnalysis) : undefined;
  }

  /** A document as the person reads it: every form of a secret, and every sealed one, blanked. */
  async function shown(projectId: number, content: string): Promise<string> {
    return content ? documentRedactor(Object.values(await hiddenValues(projectId)))(content) : content;
  }

  /** A plan's findings as the person reads them (a secret quoted in one blanked). */
  async function shownFindings(projectId: number, plan: VerifiedPlan): Promise<PlanFinding[] | undefined> {
    const findings = await findingsOf(db, projectId, plan);
    if (!findings) return undefined;
    const redact = documentRedactor(Object.values(await hiddenValues(projectId)));
    return findings.map((f) => ({ severity: f.severity, code: f.code, message: redact(f.message), where: redact(f.where) }));
  }

  async function secretRows(projectId: number) {
    return db.select().from(planningSecrets).where(eq(planningSecrets.projectId, projectId)).orderBy(planningSecrets.name);
  }

  /**
   * The decrypted values of every provided User Secret, secret or plain text, for injection into the
   * project's sandbox only (redaction takes `hiddenValues`). Never send them to a client, a log or a model.
   */
  async function secretValues(projectId: number): Promise<Record<string, string>> {
    return openedValues(projectId, () => true);
  }

  /**
   * The values that are secrets (secretKinds.ts): those typed as passwords or keys, and text-typed ones
   * shaped like a credential. Only these are sealed in stored plans and commands and redacted from what
   * people read; a host, a domain, a port or a user name (text-typed) stays visible where it was written.
   */
  async function hiddenValues(projectId: number): Promise<Record<string, string>> {
    return openedValues(projectId, (type, value) => type !== 'text' || looksLikeCredential(value));
  }

  /** The values a stored plan or command seals (sealedSecrets.ts): the secrets, as `hiddenValues`. */
  async function sealableValues(projectId: number): Promise<Record<string, string>> {
    return hiddenValues(projectId);
  }

  /** The decrypted values of the project's provided secrets that `wanted` accepts, by name. */
  async function openedValues(projectId: number, wanted: (type: ReturnType<typeof toSecretType>, value: string) => boolean): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const r of await secretRows(projectId)) {
      if (!r.ciphertext || !r.iv) continue;
      const value = secretBox.open(projectId, r.name, { ciphertext: r.ciphertext, iv: r.iv });
      if (wanted(toSecretType(r.secretType), value)) out[r.name] = value;
    }
    return out;
  }

  async function listSecrets(projectId: number): Promise<UserSecret[]> {
    const rows = (await secretRows(projectId)).filter((r) => r.declared);
    const list: UserSecret[] = rows
      .filter((r) => r.name !== USER_SECRETS.autoGeneratedName)
      .map((r) => ({
        name: r.name,
        description: r.description,
        required: r.required,
        provided: r.ciphertext !== null,
        secret_type: toSecretType(r.secretType),
      }));
    if (await analysisOf(projectId)) {
      list.unshift({
        name: USER_SECRETS.autoGeneratedName,
        description: 'Generated by the server for the analysed repository (not editable)',
        required: true,
        provided: true,
        secret_type: 'password',
      });
    }
    return list;
  }

  /** Declares the secrets the agent listed; values already stored are kept. */
  async function declareSecrets(projectId: number, secrets: unknown): Promise<void> {
    if (!Array.isArray(secrets)) throw badRequest('secrets must be a list');
    if (secrets.length > MAX_SECRETS) throw badRequest(`at most ${MAX_SECRETS} secrets`);
    const names = new Set<string>();
    for (const s of secrets as Array<Record<string, unknown>>) {
      const name = String(s?.name ?? '');
      if (!SECRET_NAME.test(name)) throw badRequest(`secret name ${JSON.stringify(name)} is not an environment variable name`);
      if (name === USER_SECRETS.autoGeneratedName || names.has(name)) continue;
      names.add(name);
      const values = {
        description: String(s.description ?? '').slice(0, 500),
        required: s.required !== false,
        secretType: toSecretType(s.secret_type),
        declared: true,
      };
      await db
        .insert(planningSecrets)
        .values({ projectId, name, ...values })
        .onConflictDoUpdate({ target: [planningSecrets.projectId, planningSecrets.name], set: { ...values, updatedAt: new Date() } });
    }
    // Variables of the analysed environment stay listed whatever the agent declares.
    const fromEnvironment = new Set(((await analysisOf(projectId)) as { env_names?: string[] } | undefined)?.env_names ?? []);
    for (const row of await secretRows(projectId)) {
      if (row.declared && !names.has(row.name) && !fromEnvironment.has(row.name)) {
        await db.update(planningSecrets).set({ declared: false }).where(and(eq(planningSecrets.projectId, projectId), eq(planningSecrets.name, row.name)));
      }
    }
  }

  /** Saves the requirements document with the secrets it declares: the agent's tool, the panel and a model's stack operations. */
  async function saveRequirements(projectId: number, args: { document: string; secrets?: unknown; ready: boolean }): Promise<void> {
    await declareSecrets(projectId, args.secrets ?? []);
    await putDocument(projectId, 'requirements', args.document, args.ready);
  }

  const stackEditing = createStackEditing({
    db,
    saveRequirements,
    wasReady: async (projectId) => (await getDocument(projectId, 'requirements'))?.ready ?? false,
  });

  const secretStatusLine = (s: UserSecret): string => `${s.name} (${s.required ? 'required' : 'optional'}): ${s.provided ? 'provided' : 'missing'}`;

  const workspace: AgentWorkspace = {
    async systemPrompt(agent, ctx) {
      const [requirements, architecture, implementation, analysis, secrets, project, stack] = await Promise.all([
        getDocument(ctx.projectId, 'requirements'),
        getDocument(ctx.projectId, 'architecture'),
        getDocument(ctx.projectId, 'implementation'),
        getDocument(ctx.projectId, 'analysis'),
        listSecrets(ctx.projectId),
        db.query.projects.findFirst({ where: (p, { eq: is }) => is(p.id, ctx.projectId) }),
        stackEditing.read(ctx.projectId),
      ]);
      const block = (tag: string, body: string | undefined): string => (body ? `<${tag}>\n${body}\n</${tag}>` : '');
      const common = [
        block('project_name', project?.name),
        block('user_secrets', secrets.map(secretStatusLine).join('\n')),
        'Secret values are never shown to you and must never be asked for in the chat: declare them as secrets; the person enters them in the User Secrets form.',
      ];
      const byAgent: Record<AgentName, string[]> = {
        requirements: [
          'Role: requirements',
          'You are a senior DevOps engineer gathering the requirements to deploy a docker-compose stack. Ask only what the requirements document needs (workload, where it runs, region, domain and TLS, load and data size), a few questions at a time. After every answer call update_requirements with the whole document, the secrets the plan needs and ready_to_continue (true only when every section has substance). Reply briefly in the chat; the document is shown beside it.',
          "When the person answers one of the repository analysis's questions (user_questions), pass the answer in analysis_answers under the question exactly as asked.",
          'When the person deploys to their own server ("my existing server deploy@203.0.113.7, SSH port 2222"), write the target as "Provider: Your existing server user@host, SSH port N" in Cloud Specifications, and declare SSH_PRIVATE_KEY with secret_type ssh_private_key (never ask for the key in the chat). A plan that creates a server at a provider reaches it the same way: over SSH with a key.',
          block('requirements_document', requirements?.content),
          block('repository_analysis', analysis?.content),
          block(STACK_EDITS_TAG, stack.edits.length ? JSON.stringify(stack.edits.map((e) => e.op)) : undefined),
        ],
        analyzer: [
          'Role: analyzer',
          'You analyse a code repository to plan its deployment with Docker Compose. Describe the technology stack, what is needed to run it and what to ask the person, then call save_analysis.',
          block('repository_facts', analysis?.content),
        ],
        architect: [
          'Role: architect',
          'You are a cloud architect. From the confirmed requirements, design a single-host docker-compose deployment and call save_architecture_plan with the complete plan (mermaid diagram, services, networking and security, the full docker-compose.yml with pinned images and healthchecks, every mounted file). Apply changes the person asks for and save the plan again.',
          block('requirements_document', requirements?.content),
          block('repository_analysis', analysis?.content),
          block('architecture_plan', architecture?.content),
        ],
        implementation: [
          'Role: implementation',
          'You plan the deployment of the confirmed architecture as ordered steps that the execution stage runs exactly: call save_implementation_plan with "## Step N: <title>" sections, each with a description and a ```bash block of exact commands. Reference secrets as environment variables. Reach the server over SSH: the first step writes the key to ssh-keys/deploy_key (out of the step history), an ssh config ssh-keys/config for the host alias da-server (HostName, Port, User, IdentityFile, UserKnownHostsFile ssh-keys/known_hosts, StrictHostKeyChecking yes), pins the host key on first contact (-o StrictHostKeyChecking=accept-new) and prints its fingerprint; later steps use `ssh -F ssh-keys/config da-server`. Find out what the server has (Docker Engine, `docker compose` v2 or `docker-compose` v1, the package manager) instead of assuming; never end a step early with exit 0; never compare two values that may both be empty; look for an existing server, firewall or IP by name before creating one; on an existing server never turn a firewall on or close ports, only open the published ones.',
          block('requirements_document', requirements?.content),
          block('repository_analysis', analysis?.content),
          block('architecture_plan', architecture?.content),
          block('implementation_plan', implementation?.content),
        ],
      };
      return [...byAgent[agent], ...common].filter(Boolean).join('\n\n');
    },

    async runTool(agent, ctx, name, args) {
      if (agent === 'requirements' && name === TOOL_NAMES.requirements) {
        if (typeof args.document !== 'string' || !args.document.trim()) throw badRequest('document must be the whole requirements text');
        await saveRequirements(ctx.projectId, { document: args.document, secrets: args.secrets, ready: args.ready_to_continue === true });
        if (args.stack_model !== undefined) await stackEditing.keepModel(ctx.projectId, args.stack_model);
        await recordAnalysisAnswers(ctx.projectId, args.analysis_answers);
        const complete = isRequirementsComplete(args.document);
        return `Saved the requirements document (${complete ? 'every section has substance' : 'some sections are still open'}).`;
      }
      if (agent === 'architect' && name === TOOL_NAMES.architecture && typeof args.plan === 'string') {
        await putDocument(ctx.projectId, 'architecture', args.plan);
        return verifyAndKeep(ctx.projectId, 'architecture', args.plan);
      }
      if (agent === 'implementation' && name === TOOL_NAMES.implementation && typeof args.plan === 'string') {
        await putDocument(ctx.projectId, 'implementation', args.plan);
        return verifyAndKeep(ctx.projectId, 'implementation', args.plan);
      }
      if (agent === 'analyzer' && name === TOOL_NAMES.analysis) {
        const current = await analysisOf(ctx.projectId);
        if (!current) throw notFound('no repository was read for this project');
        const merged: RepositoryAnalysis = {
          ...current,
          analysis: typeof args.analysis === 'string' ? args.analysis : current.analysis,
          user_questions: (args.user_questions as RepositoryAnalysis['user_questions']) ?? current.user_questions,
          deployment_plan: (args.deployment_plan as RepositoryAnalysis['deployment_plan']) ?? current.deployment_plan,
          message: 'Analysis complete',
        };
        await putDocument(ctx.projectId, 'analysis', JSON.stringify(merged));
        return 'Saved the analysis.';
      }
      throw badRequest(`unknown tool ${name}`);
    },
  };

  /** The requirements document as the person reads it (secrets in it blanked). */
  async function requirementsShown(projectId: number): Promise<{ content: string; ready_to_continue: boolean }> {
    const doc = await getDocument(projectId, 'requirements');
    if (!doc) return { content: '', ready_to_continue: false };
    return { content: await shown(projectId, doc.content), ready_to_continue: doc.ready && isRequirementsComplete(doc.content) };
  }

  const graphs = new Map<AgentName, AgentGraph>();
  const graphOf = (agent: AgentName): AgentGraph => {
    let graph = graphs.get(agent);
    if (!graph) {
      graph = buildAgentGraph(agent, { models, checkpointer, workspace });
      graphs.set(agent, graph);
    }
    return graph;
  };

  return {
    /**
     * Starts an agent turn. Resolves the thread (the given one, which must be this project's and this
     * agent's, else 404; or the project's latest for the agent, or a new one — always a new one with
     * `fresh`) and refuses a second concurrent turn on the same thread (409). The events end with one
     * `on_chat_model_end`.
     */
    async startTurn(agent: AgentName, ctx: AgentRunContext, body: { message: string; thread_id?: string }, options: { fresh?: boolean } = {}): Promise<AgentTurn> {
      await deps.beforeTurn?.({ ...ctx, model: models.forAgent(agent).name });
      // Each turn of the architect or the implementation planner gets its own revisions.
      if (agent === 'architect' || agent === 'implementation') revisions.delete(`${ctx.projectId}:${agent === 'architect' ? 'architecture' : 'implementation'}`);
      const threadId = await resolveThread(db, { projectId: ctx.projectId, agent, threadId: body.thread_id, fresh: options.fresh });
      const projectRuns = running.get(ctx.projectId) ?? new Map<string, AbortController>();
      if (projectRuns.has(threadId)) throw conflict('A reply is already being generated in this conversation');
      const controller = new AbortController();
      projectRuns.set(threadId, controller);
      running.set(ctx.projectId, projectRuns);
      const choice = models.forAgent(agent);
      const model = choice.name;
      const release = (): void => {
        if (projectRuns.get(threadId) === controller) projectRuns.delete(threadId);
        if (!projectRuns.size) running.delete(ctx.projectId);
      };
      async function* events(): AsyncGenerator<StreamEvent> {
        try {
          yield* streamTurn({
            graph: graphOf(agent),
            threadId,
            configurable: { project_id: ctx.projectId, installation_id: ctx.installationId },
            message: body.message.trim() ? body.message : CONTINUE_PROMPT,
            signal: controller.signal,
            model: choice,
            recursionLimit: 12,
            record: (usage) => onUsage({ ...ctx, agent: USAGE_AGENT[agent], model, ...usage }),
            failureDetail: 'The agent failed to answer; please try again.',
            keepPartialOnStop: true,
          });
        } finally {
          release();
        }
      }
      return { threadId, model, events: events() };
    },

    /** Aborts the running generation of the given turn (the client went away). */
    abortTurn(projectId: number, threadId: string): void {
      running.get(projectId)?.get(threadId)?.abort();
    },

    /** Stops every generation running for the project at once; what was said stays in the threads. */
    kill(projectId: number): 'stopped' | 'idle' {
      const runs = running.get(projectId);
      if (!runs?.size) return 'idle';
      for (const c of runs.values()) c.abort();
      return 'stopped';
    },

    /** The conversation of an agent (its latest thread), for reloading the chat. */
    async thread(projectId: number, agent: AgentName): Promise<{ thread_id: string | null; model: string; messages: ChatMessage[] }> {
      const model = models.forAgent(agent).name;
      const threadId = await findThread(db, { projectId, agent });
      if (!threadId) return { thread_id: null, model, messages: [] };
      const state = await graphOf(agent).getState({ configurable: { thread_id: threadId } });
      const secrets = Object.values(await hiddenValues(projectId));
      const messages = chatHistory((state.values as { messages?: BaseMessage[] }).messages ?? [], { secrets, hidden: [CONTINUE_PROMPT] });
      return { thread_id: threadId, model, messages };
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
      return (await analysisOf(projectId)) ?? { message: NO_ANALYSIS_MESSAGE };
    },

    /** A plan as stored, its secrets sealed: what steps are made from (never sent to a client as it is). */
    async plan(projectId: number, kind: 'architecture' | 'implementation'): Promise<{ plan: string }> {
      return { plan: (await getDocument(projectId, kind))?.content ?? '' };
    },

    /** The architecture plan as the person reads it (secrets in it blanked), with the verifier's findings. */
    async architecturePlan(projectId: number): Promise<{ plan: string; findings?: PlanFinding[] }> {
      const plan = await shown(projectId, (await getDocument(projectId, 'architecture'))?.content ?? '');
      const findings = plan ? await shownFindings(projectId, 'architecture') : undefined;
      return { plan, ...(findings ? { findings } : {}) };
    },

    /**
     * The implementation plan, `outdated` when the architecture plan was saved after it (the person
     * changed the architecture after the implementation was planned): it must be generated again.
     */
    async implementationPlan(projectId: number): Promise<{ plan: string; outdated: boolean; findings?: PlanFinding[] }> {
      const rows = await db
        .select({ kind: planningDocuments.kind, content: planningDocuments.content, updatedAt: planningDocuments.updatedAt })
        .from(planningDocuments)
        .where(and(eq(planningDocuments.projectId, projectId), inArray(planningDocuments.kind, ['architecture', 'implementation'])));
      const implementation = rows.find((r) => r.kind === 'implementation');
      const architecture = rows.find((r) => r.kind === 'architecture');
      if (!implementation) return { plan: '', outdated: false };
      const findings = await shownFindings(projectId, 'implementation');
      return {
        plan: await shown(projectId, implementation.content),
        outdated: Boolean(architecture && architecture.updatedAt > implementation.updatedAt),
        ...(findings ? { findings } : {}),
      };
    },

    listSecrets,

    /**
     * Stores one secret value, encrypted. GITHUB_TOKEN is the server's (400); a name the requirements
     * do not declare answers 404. Answers every declared secret's status.
     */
    async saveSecret(projectId: number, name: string, value: string): Promise<UserSecretStatus[]> {
      if (name === USER_SECRETS.autoGeneratedName) throw badRequest(`${name} is generated by the server and cannot be edited`);
      const [row] = await db
        .select({ declared: planningSecrets.declared, secretType: planningSecrets.secretType })
        .from(planningSecrets)
        .where(and(eq(planningSecrets.projectId, projectId), eq(planningSecrets.name, name)));
      if (!row?.declared) throw notFound(`The requirements do not list a secret named ${name}`);
      if (row.secretType === USER_SECRETS.sshPrivateKeyType) value = await checkedSshPrivateKey(name, value);
      const sealed = secretBox.seal(projectId, name, value);
      await db
        .update(planningSecrets)
        .set({ ciphertext: sealed.ciphertext, iv: sealed.iv, updatedAt: new Date() })
        .where(and(eq(planningSecrets.projectId, projectId), eq(planningSecrets.name, name)));
      // A plan or step that already holds this value in clear gets it sealed now.
      await resealProject(db, projectId, await sealableValues(projectId));
      return (await listSecrets(projectId)).map(({ name: n, description, required, provided }) => ({ name: n, description, required, provided }));
    },

    secretValues,
    hiddenValues,
    sealableValues,

    /**
     * Stores the secrets an analysis brings: the environment dialog's variables, declared (so the User
     * Secrets tab lists them) and sealed when a value is given (a value already stored is kept when not),
     * and the server-provided GITHUB_TOKEN, sealed but never listed as editable.
     */
    async storeAnalysisSecrets(
      projectId: number,
      input: { environment: Array<{ name: string; description: string; value: string | undefined }>; githubToken?: string },
    ): Promise<void> {
      for (const entry of input.environment.slice(0, MAX_SECRETS)) {
        if (!SECRET_NAME.test(entry.name) || entry.name === USER_SECRETS.autoGeneratedName) continue;
        const sealed = entry.value !== undefined && entry.value.trim() ? secretBox.seal(projectId, entry.name, entry.value) : undefined;
        // Only a credential is a password (masked, sealed, redacted); N8N_HOST=n8n.example.com stays readable text.
        const secretType = isSecretVariable(entry.name, entry.value) ? USER_SECRETS.passwordType : 'text';
        const values = { description: entry.description.slice(0, 500), required: true, secretType, declared: true, ...(sealed ?? {}) };
        await db
          .insert(planningSecrets)
          .values({ projectId, name: entry.name, ...values })
          .onConflictDoUpdate({ target: [planningSecrets.projectId, planningSecrets.name], set: { ...values, updatedAt: new Date() } });
      }
      if (input.githubToken) {
        const name = USER_SECRETS.autoGeneratedName;
        const values = { description: 'Generated by the server for the analysed repository', required: true, secretType: 'password', declared: false, ...secretBox.seal(projectId, name, input.githubToken) };
        await db
          .insert(planningSecrets)
          .values({ projectId, name, ...values })
          .onConflictDoUpdate({ target: [planningSecrets.projectId, planningSecrets.name], set: { ...values, updatedAt: new Date() } });
      }
    },

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
      await putDocument(projectId, 'analysis', JSON.stringify({ ...analysis, branch: facts.branch, files: facts.files, env_names: facts.env_names, layout: facts.layout }));
    },
  };
}

export type PlanningService = ReturnType<typeof createPlanningService>;
