import { randomUUID } from 'node:crypto';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
  type LangSmithParams,
} from '@langchain/core/language_models/chat_models';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { plan, type Turn } from './planner';
import { messageText } from '../messageText';
import { OFFLINE_PLANNER_MODEL } from '../../../shared/constants/costs';

/** The model name the chat shows when the offline planner answers (its turns are free: FREE_MODELS). */
export const OFFLINE_MODEL_NAME = OFFLINE_PLANNER_MODEL;

export interface OfflineChatModelParams extends BaseChatModelParams {
  /** Pause between tokens, in ms (0: as fast as the event loop allows). */
  tokenDelayMs?: number;
  /** Clock for the 'Generated on' line. */
  now?: () => Date;
}

export interface OfflineCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/** Splits text into word-sized tokens that keep their leading whitespace. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** About four characters a token, as the real tokenisers average on English and YAML. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export { messageText };

function toolName(tool: BindToolsInput): string | undefined {
  const t = tool as { name?: string; function?: { name?: string } };
  return t.function?.name ?? t.name;
}

/**
 * A LangChain chat model that needs no network: the offline planner (planner.ts) decides what a DevOps
 * engineer would answer, and this streams it token by token, then a final chunk with the tool call (when
 * that tool is bound) and `usage_metadata`. It honours the AbortSignal between tokens.
 */
export class OfflineChatModel extends BaseChatModel<OfflineCallOptions, AIMessageChunk> {
  private readonly tokenDelayMs: number;
  private readonly now: () => Date;

  static override lc_name(): string {
    return 'OfflineChatModel';
  }

  constructor(params: OfflineChatModelParams = {}) {
    super(params);
    this.tokenDelayMs = params.tokenDelayMs ?? 0;
    this.now = params.now ?? (() => new Date());
  }

  _llmType(): string {
    return OFFLINE_MODEL_NAME;
  }

  override getLsParams(_options: this['ParsedCallOptions']): LangSmithParams {
    return { ls_provider: 'offline', ls_model_name: OFFLINE_MODEL_NAME, ls_model_type: 'chat' };
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<OfflineCallOptions>): Runnable<BaseLanguageModelInput, AIMessageChunk, OfflineCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<OfflineCallOptions>);
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let final: ChatGenerationChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) final = final ? final.concat(chunk) : chunk;
    const message = final?.message ?? new AIMessageChunk({ content: '' });
    return { generations: [{ text: final?.text ?? '', message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const system = messages.filter((m) => m.getType() === 'system').map(messageText).join('\n');
    const turns: Turn[] = messages
      .filter((m) => m.getType() !== 'system')
      .map((m) => ({ role: m.getType() === 'human' ? 'user' : m.getType() === 'tool' ? 'tool' : 'assistant', content: messageText(m) }));
    const reply = plan(system, turns, this.now());
    const bound = new Set((options.tools ?? []).map(toolName));
    const calls = reply.toolCalls.filter((c) => bound.has(c.name));
    const tokens = tokenize(reply.text);
    let i = 0;
    for (const token of tokens) {
      options.signal?.throwIfAborted();
      if (this.tokenDelayMs > 0) await new Promise((r) => setTimeout(r, this.tokenDelayMs));
      else if (++i % 64 === 0) await new Promise((r) => setImmediate(r));
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
      yield chunk;
      await runManager?.handleLLMNewToken(token);
    }
    options.signal?.throwIfAborted();
    const input = messages.reduce((n, m) => n + estimateTokens(messageText(m)) + 4, 0);
    const toolArgs = calls.map((c) => JSON.stringify(c.args));
    const output = tokens.length + toolArgs.reduce((n, a) => n + estimateTokens(a), 0);
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({
        content: '',
        tool_call_chunks: calls.map((c, index) => ({ type: 'tool_call_chunk', id: `call_${randomUUID()}`, name: c.name, args: toolArgs[index], index })),
        usage_metadata: { input_tokens: input, output_tokens: output, total_tokens: input + output },
        response_metadata: { model_name: OFFLINE_MODEL_NAME, finish_reason: calls.length ? 'tool_calls' : 'stop' },
      }),
    });
  }
}
