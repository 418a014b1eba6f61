import { randomUUID } from 'node:crypto';
import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch';
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
import { DEVOPS_HELPER_TOOLS } from '../../agents/offline/devopsHelperPlanner';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import { createRedactor } from '../../sandbox/redactor';
import { dangerousReason } from '../execution/dangerous';
import type { Meter } from '../credits/meter';
import { STREAM_EVENTS, type StreamEvent } from '../../../shared/events';
import type { ApprovalDecision, Approvals, ApprovalScope } from './approvals';

/** The agent id its token usage is recorded under. */
export const DEVOPS_HELPER_AGENT_ID = 'devopsHelperAgent';
const THREAD_AGENT = 'devops-helper';
/** The custom graph event carrying text for the chat (command outcome), already redacted. */
const CHAT_NOTE = 'devops_helper_note';
/** Longest command the helper may propose. */
const MAX_COMMAND_LENGTH = 8_000;
/** How much of a command's output the model reads back (the end is kept). */
const MAX_TOOL_OUTPUT = 8_000;

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: DEVOPS_HELPER_TOOLS.runCommand,
      description:
        "Run one shell command in the project's sandbox (bash, in the workspace, with the User Secrets as environment variables). The person sees the exact command and it runs only if they approve it; you get its exit code and output.",
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];

export interface DevopsHelperDeps {
  db: Db;
  models: ModelProvider;
  approvals: Approvals;
  /** The sandbox (SandboxService narrowed): a stopped one answers 409. */
  sandbox: { exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult> };
  /** The project's User Secrets: names for the danger check, values as env and for redaction. */
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: Pick<Meter, 'assertCanSpend' | 'record'>;
  /** Upper bound of one command; the driver's default when absent. */
  commandTimeoutMs?: number;
}

interface Turn {
  controller: AbortController;
  scope: ApprovalScope;
  /** Redacts everything the turn sends to the chat and to the model. */
  redact(text: string): string;
  secrets: Record<string, string>;
}

const outcomeOf = (r: ExecResult): string =>
  r.timedOut ? 'timed out and was stopped' : r.cancelled ? 'was cancelled' : r.exitCode === null ? 'was killed by a signal' : `exited with code ${r.exitCode}`;

/**
 * The DevOps Helper: a LangGraph graph (model node, tools node, checkpointed per thread) whose one tool
 * runs a shell command in the project's sandbox, but only after the person approves that exact request:
 * the tools node announces an approval request (flagged with `dangerousReason`) and waits for
 * `approvals.decide`; a denied, expired or cancelled request never runs. The command's outcome, redacted
 * of the project's secrets, is streamed into the chat and read back by the model. Every model call is
 * metered; a turn is refused with 402 at a spent balance.
 */
export function createDevopsHelperAgent(deps: DevopsHelperDeps) {
  const { db, models, approvals, sandbox, meter } = deps;
  const choice = () => models.forAgent('implementation');
  /** Running turns by thread id; the kill aborts a project's. */
  const running = new Map<string, Turn>();

  const systemPrompt = [
    'Role: devops',
    "You are the DevOps Helper of a DevOps workspace. You help the person investigate and operate their infrastructure from the project's sandbox (which can reach their VPS over SSH). To run anything, call run_command with the exact shell command; the person approves or denies each command, and you get its output. Prefer read-only investigation before changes, explain what a command does, and never print secret values (User Secrets are environment variables).",
  ].join('\n\n');

  async function callModel(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const model = choice().model.bindTools!(TOOLS);
    return { messages: [await model.invoke([new SystemMessage(systemPrompt), ...state.messages], config)] };
  }

  /** Waits for the person's decision on one command; a kill of the turn cancels the request. */
  async function awaitDecision(turn: Turn, command: string): Promise<ApprovalDecision> {
    const names = Object.keys(turn.secrets);
    const pending = approvals.request(turn.scope, command, dangerousReason(command, names));
    const onAbort = (): void => approvals.cancel(pending.id);
    turn.controller.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await pending.decision;
    } finally {
      turn.controller.signal.removeEventListener('abort', onAbort);
    }
  }

  async function runCommand(turn: Turn, command: string, config: RunnableConfig): Promise<string> {
    if (!command.trim() || command.length > MAX_COMMAND_LENGTH) return `Error: the command must be 1 to ${MAX_COMMAND_LENGTH} characters.`;
    const decision = await awaitDecision(turn, command);
    turn.controller.signal.throwIfAborted();
    if (decision !== 'approved') {
      const note = decision === 'denied' ? 'The command was denied; it did not run.' : 'The approval request expired; the command did not run.';
      await dispatchCustomEvent(CHAT_NOTE, { text: `\n\n_${note}_\n` }, config);
      return note;
    }
    try {
      const result = await sandbox.exec({ id: turn.scope.projectId, installationId: turn.scope.installationId }, command, {
        env: turn.secrets,
        secrets: Object.values(turn.secrets),
        signal: turn.controller.signal,
        ...(deps.commandTimeoutMs ? { timeoutMs: deps.commandTimeoutMs } : {}),
      });
      const output = turn.redact(result.output);
      const shown = output.trimEnd() ? `\n\`\`\`\n${output.trimEnd().replace(/```/g, '`\u200b``')}\n\`\`\`\n` : '\n_(no output)_\n';
      await dispatchCustomEvent(CHAT_NOTE, { text: `\n\n\`${command}\` ${outcomeOf(result)}:\n${shown}` }, config);
      return `The command ${outcomeOf(result)}. Output:\n${output.slice(-MAX_TOOL_OUTPUT)}`;
    } catch (err) {
      turn.controller.signal.throwIfAborted();
      const detail = turn.redact(err instanceof HttpError ? err.message : `The command could not run: ${(err as Error).message}`);
      await dispatchCustomEvent(CHAT_NOTE, { text: `\n\n_${detail}_\n` }, config);
      return `Error: ${detail}`;
    }
  }

  async function runTools(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const threadId = (config.configurable as { thread_id: string }).thread_id;
    const turn = running.get(threadId);
    if (!turn) throw new Error('tools node outside a running turn');
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      const command = (call.args as { command?: unknown }).command;
      const content =
        call.name === DEVOPS_HELPER_TOOLS.runCommand && typeof command === 'string' ? await runCommand(turn, command, config) : `Error: bad call of ${call.name}`;
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

  /** The given thread when it is this project's helper thread (404 otherwise), else the latest, else a new one. */
  async function threadOf(projectId: number, threadId: string | undefined): Promise<string> {
    const mine = and(eq(planningThreads.projectId, projectId), eq(planningThreads.agent, THREAD_AGENT));
    const [row] = await db
      .select({ id: planningThreads.id })
      .from(planningThreads)
      .where(threadId ? and(mine, eq(planningThreads.id, threadId)) : mine)
      .orderBy(desc(planningThreads.updatedAt))
      .limit(1);
    if (row) return row.id;
    if (threadId) throw notFound('Thread not found');
    const id = randomUUID();
    await db.insert(planningThreads).values({ id, projectId, agent: THREAD_AGENT });
    return id;
  }

  /**
   * Tool results for the calls a stopped turn left unanswered, so the conversation stays well formed (a
   * model API refuses a tool call without its result).
   */
  async function unanswered(threadId: string): Promise<BaseMessage[]> {
    const messages = ((await graph.getState({ configurable: { thread_id: threadId } })).values as { messages?: BaseMessage[] }).messages ?? [];
    const answered = new Set(messages.filter((m): m is ToolMessage => m.getType() === 'tool').map((m) => m.tool_call_id));
    const last = [...messages].reverse().find((m) => m.getType() === 'ai') as AIMessage | undefined;
    return (last?.tool_calls ?? [])
      .filter((c) => c.id && !answered.has(c.id))
      .map((c) => new ToolMessage({ content: 'The turn was stopped by the user; the command did not run.', tool_call_id: c.id!, name: c.name }));
  }

  return {
    /**
     * Starts a turn: 402 when the installation has no credit left, 404 for a thread that is not this
     * project's helper thread, 409 while another turn runs on the thread. The events end with one
     * `on_chat_model_end`, or an `error` event.
     */
    async startTurn(scope: ApprovalScope, body: { message: string; thread_id?: string }): Promise<{ threadId: string; events: AsyncIterable<StreamEvent> }> {
      await meter.assertCanSpend({ installationId: scope.installationId });
      const threadId = await threadOf(scope.projectId, body.thread_id);
      if (running.has(threadId)) throw conflict('A reply is already being generated in this conversation');
      const secrets = await deps.secretValues(scope.projectId);
      const redactor = createRedactor(Object.values(secrets));
      const redact = (text: string): string => {
        const r = createRedactor(Object.values(secrets));
        return r.push(text) + r.flush();
      };
      const turn: Turn = { controller: new AbortController(), scope, secrets, redact };
      running.set(threadId, turn);
      const { name: model } = choice();
      const chunk = (text: string): StreamEvent => ({ event: STREAM_EVENTS.stream, thread_id: threadId, model, chunk: { content: text } });
      async function* events(): AsyncGenerator<StreamEvent> {
        try {
          const stream = graph.streamEvents(
            { messages: [...(await unanswered(threadId)), new HumanMessage(body.message.trim() || 'What can you do?')] },
            { configurable: { thread_id: threadId }, version: 'v2', signal: turn.controller.signal, recursionLimit: 12 },
          );
          for await (const ev of stream) {
            let text = '';
            if (ev.event === 'on_chat_model_stream') {
              const c = ev.data.chunk as AIMessageChunk | undefined;
              text = c ? messageText(c) : '';
            } else if (ev.event === 'on_custom_event' && ev.name === CHAT_NOTE) {
              text = (ev.data as { text: string }).text;
            } else if (ev.event === 'on_chat_model_end') {
              const usage = (ev.data.output as AIMessageChunk | undefined)?.usage_metadata;
              if (usage) await meter.record({ ...scope, agent: DEVOPS_HELPER_AGENT_ID, model, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
            }
            const safe = text ? redactor.push(text) : '';
            if (safe) yield chunk(safe);
          }
          const rest = redactor.flush();
          if (rest) yield chunk(rest);
        } catch (err) {
          if (!turn.controller.signal.aborted) {
            const detail = err instanceof HttpError ? err.message : 'The DevOps Helper failed to answer; please try again.';
            yield { event: STREAM_EVENTS.error, thread_id: threadId, model, data: { detail } };
            return;
          }
        } finally {
          if (running.get(threadId) === turn) running.delete(threadId);
        }
        yield { event: STREAM_EVENTS.end, thread_id: threadId, model };
      }
      return { threadId, events: events() };
    },

    /** Stops the project's running turns (a waiting approval is cancelled, a running command killed). */
    kill(scope: ApprovalScope): 'stopped' | 'idle' {
      let stopped = false;
      for (const turn of running.values()) {
        if (turn.scope.projectId !== scope.projectId || turn.scope.installationId !== scope.installationId) continue;
        turn.controller.abort();
        stopped = true;
      }
      return stopped ? 'stopped' : 'idle';
    },

    /** Stops one turn whose stream the browser left. */
    abortTurn(threadId: string): void {
      running.get(threadId)?.controller.abort();
    },
  };
}

export type DevopsHelperAgent = ReturnType<typeof createDevopsHelperAgent>;
