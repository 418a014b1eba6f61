import { randomUUID } from 'node:crypto';
import { HumanMessage, SystemMessage, ToolMessage, type AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningThreads } from '../../db/schema';
import { conflict, HttpError, notFound } from '../../errors';
import { DrizzleCheckpointSaver } from '../../agents/checkpointer';
import type { ModelProvider } from '../../agents/models';
import { messageText } from '../../agents/offline/offlineChatModel';
import { EXECUTION_TOOLS } from '../../agents/offline/executionPlanner';
import { createRedactor } from '../../sandbox/redactor';
import { STREAM_EVENTS, type StreamEvent } from '../../../shared/events';
import type { ExecutionProject, ExecutionService } from './executionService';

/** The agent id token usage is recorded under (ARCHITECTURE.md stage agents). */
export const EXECUTION_AGENT_ID = 'executionAgent';
const THREAD_AGENT = 'execution';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: EXECUTION_TOOLS.updateStep,
      description: 'Change a step that is not running: its exact shell command, description or prompt. The step then waits for approval again.',
      parameters: {
        type: 'object',
        properties: { step_number: { type: 'integer', minimum: 1 }, command: { type: 'string' }, description: { type: 'string' }, prompt: { type: 'string' } },
        required: ['step_number'],
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: EXECUTION_TOOLS.addStep,
      description: 'Append a step with its exact shell command; it waits for approval. Reference User Secrets as environment variables.',
      parameters: {
        type: 'object',
        properties: { description: { type: 'string' }, prompt: { type: 'string' }, command: { type: 'string' } },
        required: ['description', 'command'],
      },
    },
  },
];

export interface ExecutionAgentDeps {
  db: Db;
  /** The execution agent answers with the implementation planner's model (the plan's author). */
  models: ModelProvider;
  execution: Pick<ExecutionService, 'steps' | 'updateStep' | 'addStep'>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: { assertCanSpend(a: { installationId: number }): Promise<void>; record(u: { installationId: number; projectId: number; agent: string; model: string; inputTokens: number; outputTokens: number }): Promise<unknown> };
}

const ctxOf = (config: RunnableConfig): ExecutionProject => {
  const c = config.configurable as { project_id: number; installation_id: number };
  return { projectId: c.project_id, installationId: c.installation_id };
};

/**
 * The execution agent: a LangGraph graph (model node, tools node, checkpointed per thread in the planning
 * threads table) whose system prompt carries the run's steps, so it answers questions about the run and
 * may change or add steps (a changed step waits for approval again). Its stream is redacted of the
 * project's secret values, and every model call is metered.
 */
export function createExecutionAgent(deps: ExecutionAgentDeps) {
  const { db, models, execution, meter } = deps;
  const choice = () => models.forAgent('implementation');
  const running = new Map<string, AbortController>();

  async function systemPrompt(projectId: number): Promise<string> {
    const { steps } = await execution.steps(projectId);
    const view = steps.map((s) => ({ ...s, output: s.output && s.output.length > 4000 ? s.output.slice(-4000) : s.output }));
    return [
      'Role: execution',
      'You are the execution agent of a DevOps deployment. The steps below run in the project sandbox only after the person approves each one. Answer questions about the run (status, why a step failed, from its output and error). When asked to change or add a step, call update_step or add_step with the exact shell command; never run anything yourself and never print secret values.',
      `<execution_steps>\n${JSON.stringify(view)}\n</execution_steps>`,
    ].join('\n\n');
  }

  async function callModel(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const ctx = ctxOf(config);
    const model = choice().model.bindTools!(TOOLS);
    return { messages: [await model.invoke([new SystemMessage(await systemPrompt(ctx.projectId)), ...state.messages], config)] };
  }

  async function runTools(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const ctx = ctxOf(config);
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      let content: string;
      try {
        const args = call.args as { step_number?: number; command?: string; description?: string; prompt?: string };
        if (call.name === EXECUTION_TOOLS.updateStep && typeof args.step_number === 'number') {
          const step = await execution.updateStep(ctx.projectId, args.step_number, { command: args.command, description: args.description, prompt: args.prompt });
          content = `Step ${step.step_number} changed; it waits for approval.`;
        } else if (call.name === EXECUTION_TOOLS.addStep && typeof args.command === 'string') {
          const step = await execution.addStep(ctx.projectId, { command: args.command, description: args.description ?? '', prompt: args.prompt ?? args.description ?? '' });
          content = `Step ${step.step_number} added; it waits for approval.`;
        } else content = `Error: bad call of ${call.name}`;
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
    if (threadId) {
      const [row] = await db
        .select({ id: planningThreads.id })
        .from(planningThreads)
        .where(and(eq(planningThreads.id, threadId), eq(planningThreads.projectId, projectId), eq(planningThreads.agent, THREAD_AGENT)));
      if (!row) throw notFound('Thread not found');
      return row.id;
    }
    const [latest] = await db
      .select({ id: planningThreads.id })
      .from(planningThreads)
      .where(and(eq(planningThreads.projectId, projectId), eq(planningThreads.agent, THREAD_AGENT)))
      .orderBy(desc(planningThreads.updatedAt))
      .limit(1);
    if (latest) return latest.id;
    const id = randomUUID();
    await db.insert(planningThreads).values({ id, projectId, agent: THREAD_AGENT });
    return id;
  }

  return {
    /**
     * Starts a turn: 402 when the installation has no credit left, 404 for a thread that is not this
     * project's execution thread, 409 while another turn runs on the thread. The events end with one
     * `on_chat_model_end`.
     */
    async startTurn(project: ExecutionProject, query: { message: string; thread_id?: string }): Promise<{ threadId: string; events: AsyncIterable<StreamEvent> }> {
      await meter.assertCanSpend({ installationId: project.installationId });
      const threadId = await resolveThread(project.projectId, query.thread_id);
      if (running.has(threadId)) throw conflict('A reply is already being generated in this conversation');
      const controller = new AbortController();
      running.set(threadId, controller);
      const { name: model } = choice();
      const redactor = createRedactor(Object.values(await deps.secretValues(project.projectId)));
      async function* events(): AsyncGenerator<StreamEvent> {
        try {
          const stream = graph.streamEvents(
            { messages: [new HumanMessage(query.message.trim() || 'How is the execution going?')] },
            { configurable: { thread_id: threadId, project_id: project.projectId, installation_id: project.installationId }, version: 'v2', signal: controller.signal, recursionLimit: 8 },
          );
          for await (const ev of stream) {
            if (ev.event === 'on_chat_model_stream') {
              const chunk = ev.data.chunk as AIMessageChunk | undefined;
              const text = chunk ? redactor.push(messageText(chunk)) : '';
              if (text) yield { event: STREAM_EVENTS.stream, thread_id: threadId, model, chunk: { content: text } };
            } else if (ev.event === 'on_chat_model_end') {
              const usage = (ev.data.output as AIMessageChunk | undefined)?.usage_metadata;
              if (usage) await meter.record({ ...project, agent: EXECUTION_AGENT_ID, model, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
            }
          }
          const rest = redactor.flush();
          if (rest) yield { event: STREAM_EVENTS.stream, thread_id: threadId, model, chunk: { content: rest } };
        } catch (err) {
          if (!controller.signal.aborted) {
            const detail = err instanceof HttpError ? err.message : 'The agent failed to answer; please try again.';
            yield { event: STREAM_EVENTS.error, thread_id: threadId, model, data: { detail } };
            return;
          }
        } finally {
          if (running.get(threadId) === controller) running.delete(threadId);
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

export type ExecutionAgent = ReturnType<typeof createExecutionAgent>;
