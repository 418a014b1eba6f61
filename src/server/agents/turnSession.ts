import type { ToolCall } from '@langchain/core/messages/tool';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { Db } from '../db/client';
import { conflict } from '../errors';
import { TURN_TEXTS } from '../../shared/constants/agents';
import type { ChatThreadResponse } from '../../shared/api/common';
import type { StreamEvent } from '../../shared/events';
import { DrizzleCheckpointSaver } from './checkpointer';
import type { ModelChoice } from './models';
import { buildToolGraph, chatHistory, findThread, resolveThread, streamTurn, threadMessages, TURN_FAILED, type AgentTool, type HistoryOptions } from './turnLoop';

/**
 * The one turn session every agent runs on (planning, execution, validation, documentation, DevOps
 * Helper): credit check, thread, one turn at a time per thread, abort and kill, the thread read back,
 * metering through one meter and redaction of the project's secrets. An agent brings only its prompt,
 * its tools and what a turn needs (its `prepare`), so a rule of a turn is written here once.
 */

/** Whose turn it is: a project within an installation (already scoped to the caller). */
export interface TurnProject {
  projectId: number;
  installationId: number;
}

/** One model call's tokens, as the credits meter records them. */
export interface TurnUsage extends TurnProject {
  agent: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * The credits meter, as a turn uses it: refuse a turn at a spent balance (402) or hold for its first call
 * (a hold id), hold for each call sized from its prompt, record each call against its hold, release what
 * no call used.
 */
export interface TurnMeter {
  assertCanSpend(a: { installationId: number; model?: string }): Promise<number | undefined | void>;
  holdNext?(a: { installationId: number; model: string; promptBytes: number; replace?: number }): Promise<number | undefined>;
  record(usage: TurnUsage & { holdId?: number }): Promise<unknown>;
  release?(installationId: number, holdId: number): Promise<void>;
}

/** A running turn as the agent's prompt and tools see it. */
export interface Turn<S> {
  project: TurnProject;
  threadId: string;
  signal: AbortSignal;
  /** What the agent's `prepare` read for this turn (the helper's servers and secrets). */
  state: S;
}

/** A document an agent exists to save: a turn that ends without its tool gets one nudge, then an error. */
export interface RequiredSave {
  tool: string;
  /** What the person reads when the agent ended twice without saving, e.g. "no architecture plan was saved". */
  missing: string;
  /** Whether the project already has the document (a question about a saved plan needs no new save). */
  exists(project: TurnProject): Promise<boolean>;
}

export interface TurnSessionDeps<S> {
  db: Db;
  meter: TurnMeter;
  /** The model this agent answers with (chosen once from configuration). */
  model(): ModelChoice;
  /** The id its token usage is recorded under (ARCHITECTURE.md stage agents), e.g. `cloudArchitectAgent`. */
  usageAgent: string;
  /** The `agent` of its threads in the planning threads table. */
  threadAgent: string;
  tools: AgentTool[];
  systemPrompt(turn: Turn<S>): Promise<string> | string;
  /** Runs one tool call; the answer is what the model reads. Throwing answers `Error: <message>`. */
  runTool(turn: Turn<S>, call: ToolCall, config: RunnableConfig): Promise<string>;
  /** The project's secret values, blanked from everything a turn shows and from the stored thread. */
  hiddenValues(projectId: number): Promise<Record<string, string>>;
  /** Reads what a turn needs before it starts (after the credit check and the thread). */
  prepare(project: TurnProject): Promise<S>;
  /** Refuses a turn before anything else by throwing an HttpError (the planner without an architecture plan). */
  admit?(project: TurnProject): Promise<void>;
  /** Told when a turn starts and how it ends (a plan's `planning` / `failed` status). */
  onTurn?(project: TurnProject, phase: 'started' | 'ended' | 'failed'): void | Promise<void>;
  /** Sent when the person's message is blank. */
  defaultMessage: string;
  /** Messages no person typed (a flow's fixed prompt), left out of the thread read back. */
  hiddenMessages?: readonly string[];
  required?: RequiredSave;
  /** Model and tool steps a turn may take (LangGraph's recursion limit); 8 when absent. */
  recursionLimit?: number;
  /** What a failure says when neither an HttpError nor the provider's answer says more; TURN_FAILED when absent. */
  failureDetail?: string;
  keepPartialOnStop?: boolean;
  /** A custom graph event whose `{ text }` goes into the chat (the helper's command outcome). */
  noteEvent?: string;
  toolNote?: HistoryOptions['toolNote'];
  checkpointer?: BaseCheckpointSaver;
}

/** A turn ready to stream: thread resolved and turn registered before any byte is sent. */
export interface StartedTurn {
  threadId: string;
  model: string;
  events: AsyncIterable<StreamEvent>;
}

interface Running<S> extends Turn<S> {
  controller: AbortController;
  /** The turn's live credit holds, oldest first: the admission hold until the first call, then one per call sent. */
  holds: number[];
  /** Whether the admission hold was sized to the first call yet. */
  sized: boolean;
  /** Tool names the model called in this turn and that answered (did not throw). */
  called: Set<string>;
}

/** A session with no per-turn state of its own. */
export const NO_STATE = async (): Promise<undefined> => undefined;

export function createTurnSession<S>(deps: TurnSessionDeps<S>) {
  const { db, meter } = deps;
  const running = new Map<string, Running<S>>();
  const turnOf = (config: RunnableConfig): Running<S> => {
    const turn = running.get((config.configurable as { thread_id: string }).thread_id);
    if (!turn) throw new Error('agent graph run outside a running turn');
    return turn;
  };

  const graph = buildToolGraph({
    checkpointer: deps.checkpointer ?? new DrizzleCheckpointSaver(db, { secretValues: deps.hiddenValues }),
    model: () => deps.model().model,
    tools: deps.tools,
    systemPrompt: async (config) => deps.systemPrompt(turnOf(config)),
    runTool: async (call, config) => {
      const turn = turnOf(config);
      const answer = await deps.runTool(turn, call, config);
      turn.called.add(call.name);
      return answer;
    },
    // Each call holds for its own prompt before it is sent; the calls of a turn run one after another, so
    // their holds settle in order (record takes the oldest).
    beforeCall: async (promptBytes, config) => {
      const turn = turnOf(config);
      if (!meter.holdNext) return;
      // The first call resizes the admission hold; refused, it stays in `holds` to be released.
      const replace = turn.sized ? undefined : turn.holds[0];
      const id = await meter.holdNext({ installationId: turn.project.installationId, model: deps.model().name, promptBytes, replace });
      turn.sized = true;
      if (replace !== undefined) turn.holds.shift();
      if (id !== undefined) turn.holds.push(id);
    },
  });

  const secretsOf = async (projectId: number): Promise<string[]> => Object.values(await deps.hiddenValues(projectId));

  return {
    /**
     * Starts a turn: 402 at a spent balance, the agent's own refusal (`admit`), 404 for a thread that is not
     * this project's thread of this agent, 409 while another turn runs on the thread. The events end with
     * one `on_chat_model_end`, or one `error`.
     */
    async startTurn(project: TurnProject, body: { message: string; thread_id?: string }, options: { fresh?: boolean } = {}): Promise<StartedTurn> {
      const model = deps.model();
      const admission = (await meter.assertCanSpend({ installationId: project.installationId, model: model.name })) ?? undefined;
      const holds = admission === undefined ? [] : [admission];
      const releaseHolds = async (): Promise<void> => {
        for (const id of holds.splice(0)) await meter.release?.(project.installationId, id).catch(() => undefined);
      };
      let threadId: string;
      let state: S;
      let secrets: string[];
      try {
        await deps.admit?.(project);
        threadId = await resolveThread(db, { projectId: project.projectId, agent: deps.threadAgent, threadId: body.thread_id, fresh: options.fresh });
        [state, secrets] = await Promise.all([deps.prepare(project), secretsOf(project.projectId)]);
        // Checked and taken with no await between: of two turns at once on one thread, one is refused.
        if (running.has(threadId)) throw conflict(TURN_TEXTS.busy);
      } catch (err) {
        await releaseHolds();
        throw err;
      }
      const controller = new AbortController();
      const turn: Running<S> = { project, threadId, signal: controller.signal, state, controller, called: new Set(), holds, sized: false };
      running.set(threadId, turn);
      let nudged = false;
      const { required } = deps;
      const saved = async (): Promise<boolean> => !required || turn.called.has(required.tool) || (await required.exists(project));
      async function* events(): AsyncGenerator<StreamEvent> {
        let failed = true;
        try {
          await deps.onTurn?.(project, 'started');
          yield* streamTurn({
            graph,
            threadId,
            configurable: { project_id: project.projectId, installation_id: project.installationId },
            message: body.message.trim() || deps.defaultMessage,
            signal: controller.signal,
            model,
            recursionLimit: deps.recursionLimit ?? 8,
            secrets,
            record: (usage) => meter.record({ ...project, agent: deps.usageAgent, model: model.name, ...usage, holdId: turn.holds.shift() }),
            failureDetail: deps.failureDetail ?? TURN_FAILED,
            ...(deps.keepPartialOnStop ? { keepPartialOnStop: true } : {}),
            ...(deps.noteEvent ? { noteEvent: deps.noteEvent } : {}),
            // An agent that exists to save a document and ended without it is told once, then the person is.
            next: async () => {
              if (!required || nudged || (await saved())) return undefined;
              nudged = true;
              return TURN_TEXTS.nudge(required.tool);
            },
            verdict: async () => (!required || (await saved()) ? undefined : TURN_TEXTS.notSaved(required.missing)),
          });
          failed = controller.signal.aborted || !(await saved());
        } finally {
          // A hold no call settled (the turn failed or stopped before its call) stops counting at once.
          await releaseHolds();
          if (running.get(threadId) === turn) running.delete(threadId);
          await deps.onTurn?.(project, failed ? 'failed' : 'ended');
        }
      }
      return { threadId, model: model.name, events: events() };
    },

    /** Stops one turn whose stream the browser left. */
    abortTurn(threadId: string): void {
      running.get(threadId)?.controller.abort();
    },

    /** Stops the project's running turns; what was already streamed is metered. */
    kill(project: TurnProject): 'stopped' | 'idle' {
      let stopped = false;
      for (const turn of running.values()) {
        if (turn.project.projectId !== project.projectId || turn.project.installationId !== project.installationId) continue;
        turn.controller.abort();
        stopped = true;
      }
      return stopped ? 'stopped' : 'idle';
    },

    /** The project's latest conversation with this agent, as the chat showed it (redacted), for a reload. */
    async thread(project: Pick<TurnProject, 'projectId'>): Promise<ChatThreadResponse> {
      const model = deps.model().name;
      const threadId = await findThread(db, { projectId: project.projectId, agent: deps.threadAgent });
      if (!threadId) return { thread_id: null, model, messages: [] };
      const hidden = [...(deps.hiddenMessages ?? []), ...(deps.required ? [TURN_TEXTS.nudge(deps.required.tool)] : [])];
      const options: HistoryOptions = { secrets: await secretsOf(project.projectId), hidden, ...(deps.toolNote ? { toolNote: deps.toolNote } : {}) };
      return { thread_id: threadId, model, messages: chatHistory(await threadMessages(graph, threadId), options) };
    },
  };
}

export type TurnSession = ReturnType<typeof createTurnSession>;
