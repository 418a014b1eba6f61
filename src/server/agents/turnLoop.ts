import { randomUUID } from 'node:crypto';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { planningThreads } from '../db/schema';
import { HttpError, notFound } from '../errors';
import { isDiskFull } from '../diskFull';
import { createRedactor, redactText } from '../sandbox/redactor';
import { STREAM_EVENTS, type StreamEvent } from '../../shared/events';
import { TURN_TEXTS } from '../../shared/constants/agents';
import { modelErrorMessage } from './modelErrors';
import type { ModelChoice } from './models';
import { messageText } from './messageText';

/**
 * The one agent turn loop every agent runs (planning, execution, validation, documentation, DevOps
 * Helper): a LangGraph graph of a model node and a tools node, checkpointed per thread, and the turn
 * that streams it — text redacted of the project's secrets, every model call metered, abortable, tool
 * calls a stopped turn left open answered before the next message, and a failed turn taken back out of
 * the thread with a message that says what the model provider answered.
 */

/** A tool an agent may call, in the OpenAI function format every provider accepts through LangChain. */
export interface AgentTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ToolGraphDeps {
  checkpointer: BaseCheckpointSaver;
  /** The model of a call (the agent's configured one). */
  model(): BaseChatModel;
  tools: AgentTool[];
  /** The system prompt of a model call: `Role: <role>` first, then the context in tagged blocks. */
  systemPrompt(config: RunnableConfig): Promise<string>;
  /** Runs one tool call; the answer is what the model reads. Throwing answers `Error: <message>`. */
  runTool(call: ToolCall, config: RunnableConfig): Promise<string>;
  /**
   * Told the size of a model call's prompt (UTF-8 bytes of the system prompt, the messages and the tools)
   * before it is sent: the credits hold for it. Throwing (402) ends the turn before the call.
   */
  beforeCall?(promptBytes: number, config: RunnableConfig): Promise<void>;
}

/** Compiles an agent's graph: model, then its tool calls, then the model again unless it already spoke. */
export function buildToolGraph(deps: ToolGraphDeps) {
  async function callModel(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const model = deps.model().bindTools!(deps.tools);
    const prompt = [new SystemMessage(await deps.systemPrompt(config)), ...state.messages];
    await deps.beforeCall?.(Buffer.byteLength(JSON.stringify(prompt.map((m) => m.content))) + Buffer.byteLength(JSON.stringify(deps.tools)), config);
    return { messages: [await model.invoke(prompt, config)] };
  }

  async function runTools(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      let content: string;
      try {
        content = await deps.runTool(call, config);
      } catch (err) {
        // A stopped turn stops here; any other failure is the model's to read.
        config.signal?.throwIfAborted();
        content = `Error: ${(err as Error).message}`;
      }
      out.push(new ToolMessage({ content, tool_call_id: call.id ?? call.name, name: call.name }));
    }
    return { messages: out };
  }

  // (A failed turn taken out of the thread can leave it empty.)
  const afterAgent = (state: typeof MessagesAnnotation.State): 'tools' | typeof END =>
    (state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? 'tools' : END;
  /** A model that already spoke alongside its tool call is done; one that only called a tool gets to reply. */
  const afterTools = (state: typeof MessagesAnnotation.State): 'agent' | typeof END => {
    const ai = [...state.messages].reverse().find((m) => m.getType() === 'ai');
    return ai && messageText(ai).trim() ? END : 'agent';
  };

  return new StateGraph(MessagesAnnotation)
    .addNode('agent', callModel)
    .addNode('tools', runTools)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', afterAgent, ['tools', END])
    .addConditionalEdges('tools', afterTools, ['agent', END])
    .compile({ checkpointer: deps.checkpointer });
}

export type ToolGraph = ReturnType<typeof buildToolGraph>;

/** The messages of a thread as checkpointed. */
export async function threadMessages(graph: ToolGraph, threadId: string): Promise<BaseMessage[]> {
  return ((await graph.getState({ configurable: { thread_id: threadId } })).values as { messages?: BaseMessage[] }).messages ?? [];
}

/** The given thread when it is this project's thread of this agent, else the project's latest of the agent. */
export async function findThread(db: Db, q: { projectId: number; agent: string; threadId?: string }): Promise<string | undefined> {
  const own = and(eq(planningThreads.projectId, q.projectId), eq(planningThreads.agent, q.agent));
  const [row] = await db
    .select({ id: planningThreads.id })
    .from(planningThreads)
    .where(q.threadId ? and(own, eq(planningThreads.id, q.threadId)) : own)
    .orderBy(desc(planningThreads.updatedAt))
    .limit(1);
  return row?.id;
}

/**
 * The thread of a turn in the planning threads table: the given one when it is this project's thread of
 * this agent (404 otherwise), else the project's latest of the agent, else (or with `fresh`) a new one.
 */
export async function resolveThread(db: Db, q: { projectId: number; agent: string; threadId?: string; fresh?: boolean }): Promise<string> {
  if (!q.fresh) {
    const found = await findThread(db, q);
    if (found) return found;
    if (q.threadId) throw notFound('Thread not found');
  }
  const id = randomUUID();
  await db.insert(planningThreads).values({ id, projectId: q.projectId, agent: q.agent });
  return id;
}

/** A message of a chat read back after a reload. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface HistoryOptions {
  /** Secret values never shown (a person may have typed one; the model may have repeated it). */
  secrets: readonly string[];
  /** Messages no person typed (a flow's fixed prompt), left out. */
  hidden?: readonly string[];
  /** The chat text a tool's result showed while the turn streamed (a command's outcome); none when absent. */
  toolNote?(call: ToolCall | undefined, result: ToolMessage): string | null;
}

/**
 * A checkpointed conversation as the chat showed it live: each person's message, then one assistant
 * message per turn (its texts and tool notes joined, as they streamed into one bubble), redacted.
 */
export function chatHistory(messages: readonly BaseMessage[], options: HistoryOptions): HistoryMessage[] {
  const out: HistoryMessage[] = [];
  const calls = new Map<string, ToolCall>();
  const say = (text: string): void => {
    const last = out.at(-1);
    if (last?.role === 'assistant') last.content += text;
    else out.push({ role: 'assistant', content: text });
  };
  for (const message of messages) {
    const type = message.getType();
    if (type === 'human') {
      const text = messageText(message);
      if (text.trim() && !options.hidden?.includes(text)) out.push({ role: 'user', content: text });
    } else if (type === 'ai') {
      for (const call of (message as AIMessage).tool_calls ?? []) if (call.id) calls.set(call.id, call);
      say(messageText(message));
    } else if (type === 'tool' && options.toolNote) {
      const result = message as ToolMessage;
      say(options.toolNote(calls.get(result.tool_call_id), result) ?? '');
    }
  }
  return out
    .map((m) => ({ role: m.role, content: redactText(m.content, options.secrets) }))
    .filter((m) => m.content.trim());
}

/** The result of a tool call a stopped turn left open (the chat showed nothing for it). */
export const STOPPED_TOOL_ANSWER = 'The turn was stopped by the user; the tool call did not run.';

/**
 * Results for the tool calls a stopped turn left unanswered, so the conversation stays well formed (a
 * model API refuses a tool call without its result).
 */
async function openToolCallAnswers(graph: ToolGraph, threadId: string): Promise<BaseMessage[]> {
  const messages = await threadMessages(graph, threadId);
  const answered = new Set(messages.filter((m): m is ToolMessage => m.getType() === 'tool').map((m) => m.tool_call_id));
  const last = [...messages].reverse().find((m) => m.getType() === 'ai') as AIMessage | undefined;
  return (last?.tool_calls ?? [])
    .filter((c) => c.id && !answered.has(c.id))
    .map((c) => new ToolMessage({ content: STOPPED_TOOL_ANSWER, tool_call_id: c.id!, name: c.name }));
}

export interface TurnRequest {
  graph: ToolGraph;
  threadId: string;
  /** More of the graph's `configurable` (who the turn is for), beside `thread_id`. */
  configurable?: Record<string, unknown>;
  message: string;
  signal: AbortSignal;
  model: Pick<ModelChoice, 'name' | 'provider' | 'idleTimeoutMs'>;
  recursionLimit: number;
  /** Secret values never shown in the chat. */
  secrets?: readonly string[];
  /** Meters one model call. */
  record(usage: { inputTokens: number; outputTokens: number }): Promise<unknown>;
  /** A custom graph event whose `{ text }` goes into the chat (a tool's outcome), redacted like the rest. */
  noteEvent?: string;
  /** What a failure says when neither an HttpError nor a model provider's answer says more. */
  failureDetail: string;
  /** On a stop, keep what the model already said in the thread. */
  keepPartialOnStop?: boolean;
  /** Asked after each run of the graph: a message to send on in the same turn (a nudge), or none. */
  next?(): Promise<string | undefined>;
  /** Asked once the runs are done: an error the turn ends with instead of its end (a document not saved). */
  verdict?(): Promise<string | undefined>;
}

/** Thrown into a model call that sent nothing for its idle timeout. */
class ModelStalled extends Error {}

/**
 * One model call as it streams, for metering a call that never reported its usage (stopped or stalled):
 * its input estimated at four characters a token, its output one token a streamed chunk, as providers
 * stream them.
 */
interface OpenCall {
  inputChars: number;
  chunks: number;
}

const charsOf = (input: unknown): number => {
  const messages = (input as { messages?: BaseMessage[][] } | undefined)?.messages?.flat() ?? [];
  return messages.reduce((n, m) => n + messageText(m).length, 0);
};

/**
 * Streams one turn as the chat's events: text chunks, then one `on_chat_model_end` — or one `error`
 * (then the error is thrown on, for the route to log), in which case the turn's messages are removed
 * from the thread, so the person sends the message again into a thread that never saw it. A model call
 * that sends nothing for the model's idle timeout ends the turn with an error saying so; a call stopped
 * or stalled before it reported its usage is metered from what it streamed.
 */
export async function* streamTurn(req: TurnRequest): AsyncGenerator<StreamEvent> {
  const { graph, threadId, model } = req;
  const config = { configurable: { ...req.configurable, thread_id: threadId } };
  const redactor = createRedactor(req.secrets ?? []);
  const chunk = (text: string): StreamEvent => ({ event: STREAM_EVENTS.stream, thread_id: threadId, model: model.name, chunk: { content: text } });
  const stall = new AbortController();
  const signal = AbortSignal.any([req.signal, stall.signal]);
  let timer: NodeJS.Timeout | undefined;
  const watch = (on: boolean): void => {
    clearTimeout(timer);
    if (on && model.idleTimeoutMs) timer = setTimeout(() => stall.abort(new ModelStalled()), model.idleTimeoutMs);
  };
  const open = new Map<string, OpenCall>();
  const human = new HumanMessage({ content: req.message, id: randomUUID() });
  let partial = '';
  try {
    for (let message: BaseMessage | undefined = human; message; ) {
      const events = graph.streamEvents(
        { messages: [...(await openToolCallAnswers(graph, threadId)), message] },
        { ...config, version: 'v2', signal, recursionLimit: req.recursionLimit },
      );
      for await (const ev of events) {
        let text = '';
        if (ev.event === 'on_chat_model_start') {
          open.set(ev.run_id, { inputChars: charsOf(ev.data.input), chunks: 0 });
          watch(true);
        } else if (ev.event === 'on_chat_model_stream') {
          watch(true);
          const call = open.get(ev.run_id);
          if (call) call.chunks += 1;
          const c = ev.data.chunk as AIMessageChunk | undefined;
          text = c ? messageText(c) : '';
          partial += text;
        } else if (req.noteEvent && ev.event === 'on_custom_event' && ev.name === req.noteEvent) {
          text = (ev.data as { text: string }).text;
        } else if (ev.event === 'on_chat_model_end') {
          watch(false);
          open.delete(ev.run_id);
          partial = '';
          const usage = (ev.data.output as AIMessageChunk | undefined)?.usage_metadata;
          if (usage) await req.record({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
        }
        const safe = text ? redactor.push(text) : '';
        if (safe) yield chunk(safe);
      }
      const more = signal.aborted ? undefined : await req.next?.();
      message = more ? new HumanMessage({ content: more, id: randomUUID() }) : undefined;
    }
  } catch (err) {
    watch(false);
    const stalled = stall.signal.aborted && !req.signal.aborted;
    if (!req.signal.aborted) {
      // The error event must reach the person even when the thread cannot be written (a full disk): a
      // turn whose checkpoint was refused is not in the thread to be removed anyway.
      await forgetTurn(graph, threadId, human.id!).catch(() => undefined);
      const detail = stalled
        ? TURN_TEXTS.stalled(Math.round(model.idleTimeoutMs! / 1000))
        : err instanceof HttpError
          ? err.message
          : isDiskFull(err)
            ? TURN_NOT_SAVED
            : (modelErrorMessage(err, model) ?? req.failureDetail);
      yield { event: STREAM_EVENTS.error, thread_id: threadId, model: model.name, data: { detail: redactor.push(detail) + redactor.flush() } };
      if (stalled) return;
      throw err;
    }
    // Stopped: what was already said stays in the thread when the agent keeps it.
    if (req.keepPartialOnStop && partial) await graph.updateState(config, { messages: [new AIMessage(partial)] }, 'agent');
  } finally {
    watch(false);
    await meterOpenCalls(open, req);
  }
  const rest = redactor.flush();
  if (rest) yield chunk(rest);
  const verdict = req.signal.aborted ? undefined : await req.verdict?.();
  if (verdict) {
    yield { event: STREAM_EVENTS.error, thread_id: threadId, model: model.name, data: { detail: redactor.push(verdict) + redactor.flush() } };
    return;
  }
  yield { event: STREAM_EVENTS.end, thread_id: threadId, model: model.name };
}

/** Meters the model calls a stop or a stall cut off before they reported their usage. */
async function meterOpenCalls(open: Map<string, OpenCall>, req: Pick<TurnRequest, 'record'>): Promise<void> {
  for (const call of open.values()) {
    // A call that streamed nothing may never have reached the model; one that did was answered and is paid for.
    if (!call.chunks) continue;
    await req.record({ inputTokens: Math.ceil(call.inputChars / 4), outputTokens: call.chunks }).catch(() => undefined);
  }
  open.clear();
}

/** What a failed turn says when neither an HttpError nor the model provider's answer says more. */
export const TURN_FAILED = 'The agent failed to answer; please try again.';

/** What the person reads when the answer streamed but could not be kept: a reload would not show it. */
export const TURN_NOT_SAVED = "This answer was not saved: the server's disk is full. Free some space, then send your message again.";

/** Removes a failed turn's messages (its message and what followed) from the thread. */
async function forgetTurn(graph: ToolGraph, threadId: string, humanId: string): Promise<void> {
  const messages = await threadMessages(graph, threadId);
  const from = messages.findIndex((m) => m.id === humanId);
  if (from < 0) return;
  const removals = messages.slice(from).map((m) => new RemoveMessage({ id: m.id! }));
  await graph.updateState({ configurable: { thread_id: threadId } }, { messages: removals }, 'agent');
}
