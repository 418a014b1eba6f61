import type { RunnableConfig } from '@langchain/core/runnables';
import type { Db } from '../../db/client';
import { conflict } from '../../errors';
import { DrizzleCheckpointSaver } from '../../agents/checkpointer';
import type { AgentName, ModelProvider } from '../../agents/models';
import { buildToolGraph, chatHistory, findThread, resolveThread, streamTurn, threadMessages, type AgentTool } from '../../agents/turnLoop';
import type { ChatThreadResponse } from '../../../shared/api/common';
import type { StreamEvent } from '../../../shared/events';
import type { StepProject } from './stepRuns';

export type { AgentTool };

/** What the agents of the step stages need to meter a turn (Meter narrowed). */
export interface AgentMeter {
  assertCanSpend(a: { installationId: number; model?: string }): Promise<void>;
  record(u: { installationId: number; projectId: number; agent: string; model: string; inputTokens: number; outputTokens: number }): Promise<unknown>;
}

export interface ToolAgentDeps {
  db: Db;
  models: ModelProvider;
  /** Whose model answers (a stage agent answers with the model of the plan's author). */
  modelAgent: AgentName;
  /** The agent id token usage is recorded under (ARCHITECTURE.md stage agents). */
  agentId: string;
  /** The `agent` of its threads in the planning threads table. */
  threadAgent: string;
  tools: AgentTool[];
  /** The system prompt of a model call: `Role: <role>` first, then the context in tagged blocks. */
  systemPrompt(project: StepProject): Promise<string>;
  /** Runs one tool call; the answer is what the model reads. Throwing answers `Error: <message>`. */
  runTool(project: StepProject, name: string, args: Record<string, unknown>): Promise<string>;
  /** Sent when the person's message is blank. */
  defaultMessage: string;
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: AgentMeter;
  /** Told when a turn starts and how it ends (e.g. a plan's `planning` / `failed` status). */
  onTurn?(project: StepProject, phase: 'started' | 'ended' | 'failed'): void | Promise<void>;
}

const ctxOf = (config: RunnableConfig): StepProject => {
  const c = config.configurable as { project_id: number; installation_id: number };
  return { projectId: c.project_id, installationId: c.installation_id };
};

/**
 * An agent of a step stage (execution, validation, documentation) on the one turn loop (turnLoop.ts):
 * its system prompt carries the stage's context, its stream is redacted of the project's secret values,
 * every model call is metered, and a turn is refused with 402 when the installation has no credit left.
 */
export function createToolAgent(deps: ToolAgentDeps) {
  const { db, models, meter } = deps;
  const choice = () => models.forAgent(deps.modelAgent);
  const running = new Map<string, AbortController>();

  const graph = buildToolGraph({
    checkpointer: new DrizzleCheckpointSaver(db, { secretValues: deps.secretValues }),
    model: () => choice().model,
    tools: deps.tools,
    systemPrompt: (config) => deps.systemPrompt(ctxOf(config)),
    runTool: (call, config) => deps.runTool(ctxOf(config), call.name, call.args as Record<string, unknown>),
  });

  return {
    /**
     * Starts a turn: 402 when the installation has no credit left, 404 for a thread that is not this
     * project's thread of this agent, 409 while another turn runs on the thread. The events end with one
     * `on_chat_model_end` (or one `error`).
     */
    async startTurn(project: StepProject, query: { message: string; thread_id?: string }): Promise<{ threadId: string; events: AsyncIterable<StreamEvent> }> {
      await meter.assertCanSpend({ installationId: project.installationId, model: choice().name });
      const threadId = await resolveThread(db, { projectId: project.projectId, agent: deps.threadAgent, threadId: query.thread_id });
      if (running.has(threadId)) throw conflict('A reply is already being generated in this conversation');
      const controller = new AbortController();
      running.set(threadId, controller);
      const model = choice();
      const secrets = Object.values(await deps.secretValues(project.projectId));
      await deps.onTurn?.(project, 'started');
      async function* events(): AsyncGenerator<StreamEvent> {
        let failed = true;
        try {
          yield* streamTurn({
            graph,
            threadId,
            configurable: { project_id: project.projectId, installation_id: project.installationId },
            message: query.message.trim() || deps.defaultMessage,
            signal: controller.signal,
            model,
            recursionLimit: 8,
            secrets,
            record: (usage) => meter.record({ ...project, agent: deps.agentId, model: model.name, ...usage }),
            failureDetail: 'The agent failed to answer; please try again.',
          });
          failed = controller.signal.aborted;
        } finally {
          if (running.get(threadId) === controller) running.delete(threadId);
          await deps.onTurn?.(project, failed ? 'failed' : 'ended');
        }
      }
      return { threadId, events: events() };
    },

    abortTurn(threadId: string): void {
      running.get(threadId)?.abort();
    },

    /** The project's latest conversation with this agent, as the chat showed it (redacted), for a reload. */
    async thread(project: StepProject): Promise<ChatThreadResponse> {
      const model = choice().name;
      const threadId = await findThread(db, { projectId: project.projectId, agent: deps.threadAgent });
      if (!threadId) return { thread_id: null, model, messages: [] };
      const secrets = Object.values(await deps.secretValues(project.projectId));
      return { thread_id: threadId, model, messages: chatHistory(await threadMessages(graph, threadId), { secrets }) };
    },
  };
}

export type ToolAgent = ReturnType<typeof createToolAgent>;
