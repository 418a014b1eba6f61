import { randomUUID } from 'node:crypto';
import { HumanMessage, SystemMessage, ToolMessage, type AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningThreads } from '../../db/schema';
import { conflict, HttpError, notFound } from '../../errors';
import { DrizzleCheckpointSaver } from '../../agents/checkpointer';
import type { AgentName, ModelProvider } from '../../agents/models';
import { messageText } from '../../agents/offline/offlineChatModel';
import { createRedactor } from '../../sandbox/redactor';
import { STREAM_EVENTS, type StreamEvent } from '../../../shared/events';
import type { StepProject } from './stepRuns';

/** A tool an agent may call, in the OpenAI function format every provider accepts through LangChain. */
export interface AgentTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What the agents of the step stages need to meter a turn (Meter narrowed). */
export interface AgentMeter {
  assertCanSpend(a: { installationId: number }): Promise<void>;
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
 * An agent of a step stage (execution, validation, documentation): a LangGraph graph (model node, tools
 * node, checkpointed per thread in the planning threads table) whose system prompt carries the stage's
 * context. Its stream is redacted of the project's secret values, every model call is metered, and a
 * turn is refused with 402 when the installation has no credit left.
 */
export function createToolAgent(deps: ToolAgentDeps) {
  const { db, models, meter } = deps;
  const choice = () => models.forAgent(deps.modelAgent);
  const running = new Map<string, AbortController>();

  async function callModel(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const model = choice().model.bindTools!(deps.tools);
    return { messages: [await model.invoke([new SystemMessage(await deps.systemPrompt(ctxOf(config))), ...state.messages], config)] };
  }

  async function runTools(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      let content: string;
      try {
        content = await deps.runTool(ctxOf(config), call.name, call.args as Record<string, unknown>);
      } catch (err) {
        content = `Error: ${(err as Error).message}`;
      }
      out.push(new ToolMessage({ content, tool_call_id: call.id ?? call.name, name: call.name }));
    }
    return { messages: out };
  }

  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', callModel)
    .addNode('tools', runTools)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (s) => ((s.messages[s.messages.length - 1] as AIMessage).tool_calls?.length ? 'tools' : END), ['tools', END])
    .addConditionalEdges(
      'tools',
      (s) => {
        const ai = [...s.messages].reverse().find((m) => m.getType() === 'ai');
        return ai && messageText(ai).trim() ? END : 'agent';
      },
      ['agent', END],
    )
    .compile({ checkpointer: new DrizzleCheckpointSaver(db) });

  async function resolveThread(projectId: number, threadId: string | undefined): Promise<string> {
    const own = and(eq(planningThreads.projectId, projectId), eq(planningThreads.agent, deps.threadAgent));
    if (threadId) {
      const [row] = await db.select({ id: planningThreads.id }).from(planningThreads).where(and(eq(planningThreads.id, threadId), own));
      if (!row) throw notFound('Thread not found');
      return row.id;
    }
    const [latest] = await db.select({ id: planningThreads.id }).from(planningThreads).where(own).orderBy(desc(planningThreads.updatedAt)).limit(1);
    if (latest) return latest.id;
    const id = randomUUID();
    await db.insert(planningThreads).values({ id, projectId, agent: deps.threadAgent });
    return id;
  }

  return {
    /**
     * Starts a turn: 402 when the installation has no credit left, 404 for a thread that is not this
     * project's thread of this agent, 409 while another turn runs on the thread. The events end with one
     * `on_chat_model_end` (or one `error`).
     */
    async startTurn(project: StepProject, query: { message: string; thread_id?: string }): Promise<{ threadId: string; events: AsyncIterable<StreamEvent> }> {
      await meter.assertCanSpend({ installationId: project.installationId });
      const threadId = await resolveThread(project.projectId, query.thread_id);
      if (running.has(threadId)) throw conflict('A reply is already being generated in this conversation');
      const controller = new AbortController();
      running.set(threadId, controller);
      const { name: model } = choice();
      const redactor = createRedactor(Object.values(await deps.secretValues(project.projectId)));
      await deps.onTurn?.(project, 'started');
      async function* events(): AsyncGenerator<StreamEvent> {
        let failed = true;
        try {
          const stream = graph.streamEvents(
            { messages: [new HumanMessage(query.message.trim() || deps.defaultMessage)] },
            { configurable: { thread_id: threadId, project_id: project.projectId, installation_id: project.installationId }, version: 'v2', signal: controller.signal, recursionLimit: 8 },
          );
          for await (const ev of stream) {
            if (ev.event === 'on_chat_model_stream') {
              const chunk = ev.data.chunk as AIMessageChunk | undefined;
              const text = chunk ? redactor.push(messageText(chunk)) : '';
              if (text) yield { event: STREAM_EVENTS.stream, thread_id: threadId, model, chunk: { content: text } };
            } else if (ev.event === 'on_chat_model_end') {
              const usage = (ev.data.output as AIMessageChunk | undefined)?.usage_metadata;
              if (usage) await meter.record({ ...project, agent: deps.agentId, model, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
            }
          }
          const rest = redactor.flush();
          if (rest) yield { event: STREAM_EVENTS.stream, thread_id: threadId, model, chunk: { content: rest } };
          failed = false;
        } catch (err) {
          if (!controller.signal.aborted) {
            const detail = err instanceof HttpError ? err.message : 'The agent failed to answer; please try again.';
            yield { event: STREAM_EVENTS.error, thread_id: threadId, model, data: { detail } };
            return;
          }
        } finally {
          if (running.get(threadId) === controller) running.delete(threadId);
          await deps.onTurn?.(project, failed ? 'failed' : 'ended');
        }
        yield { event: STREAM_EVENTS.end, thread_id: threadId, model };
      }
      return { threadId, events: events() };
    },

    abortTurn(threadId: string): void {
      running.get(threadId)?.abort();
    },
  };
}

export type ToolAgent = ReturnType<typeof createToolAgent>;
