import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { OfflineChatModel, OFFLINE_MODEL_NAME } from './offline/offlineChatModel';

/** The planning agents, each of which may have its own model. */
export const AGENTS = ['requirements', 'analyzer', 'architect', 'implementation'] as const;
export type AgentName = (typeof AGENTS)[number];

export type ProviderName = 'openai' | 'anthropic' | 'offline';

/** What configuration says about language models (config.ts reads it from the environment). */
export interface ModelConfig {
  /** `auto` picks Anthropic when its key is set, else OpenAI when a key or base URL is set, else offline. */
  provider: 'auto' | ProviderName;
  openai: { apiKey: string | undefined; baseUrl: string | undefined; model: string };
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined; model: string };
  /** Per agent override, `provider:model` (e.g. `anthropic:claude-sonnet-4-5`) or a bare model name. */
  perAgent: Partial<Record<AgentName, string>>;
  /** Offline planner: pause between tokens in ms. */
  offlineTokenDelayMs: number;
  /** Upper bound of one model call, in ms. */
  timeoutMs: number;
}

export interface ModelChoice {
  model: BaseChatModel;
  provider: ProviderName;
  /** Shown in the chat, so a person knows who is answering. */
  name: string;
  /**
   * How long an answer may go without a token before its turn ends with an error (MODEL_TIMEOUT_SECONDS):
   * a client library's timeout bounds the wait for the first byte, not a stream that stalls after it.
   */
  idleTimeoutMs?: number;
}

/** Chooses the model of each agent once, from configuration; the graphs never ask which it is. */
export interface ModelProvider {
  forAgent(agent: AgentName): ModelChoice;
}

function defaultProvider(config: ModelConfig): ProviderName {
  if (config.provider !== 'auto') return config.provider;
  if (config.anthropic.apiKey) return 'anthropic';
  if (config.openai.apiKey || config.openai.baseUrl) return 'openai';
  return 'offline';
}

/** The provider and model name an agent answers with: the default, or its `provider:model` override. */
function choiceOf(config: ModelConfig, agent: AgentName): { provider: ProviderName; modelName: string | undefined } {
  const override = config.perAgent[agent];
  if (!override) return { provider: defaultProvider(config), modelName: undefined };
  const m = override.match(/^(openai|anthropic|offline):(.*)$/);
  if (m) return { provider: m[1] as ProviderName, modelName: m[2] || undefined };
  return { provider: defaultProvider(config), modelName: override };
}

/**
 * Chooses the model of each agent once, from configuration. Only the client libraries of the providers
 * the configuration can choose are loaded (each costs about half a second of start-up; offline, none is).
 */
export async function createModelProvider(config: ModelConfig): Promise<ModelProvider> {
  const used = new Set(AGENTS.map((agent) => choiceOf(config, agent).provider));
  const { ChatOpenAI } = used.has('openai') ? await import('@langchain/openai') : { ChatOpenAI: null };
  const { ChatAnthropic } = used.has('anthropic') ? await import('@langchain/anthropic') : { ChatAnthropic: null };
  const cache = new Map<string, ModelChoice>();
  const build = (provider: ProviderName, modelName: string | undefined): ModelChoice => {
    switch (provider) {
      case 'openai': {
        const name = modelName ?? config.openai.model;
        return {
          provider,
          name,
          idleTimeoutMs: config.timeoutMs,
          model: new ChatOpenAI!({
            model: name,
            // OpenAI-compatible servers without auth (Ollama, vLLM) still need a non-empty key in the client.
            apiKey: config.openai.apiKey ?? 'not-needed',
            configuration: config.openai.baseUrl ? { baseURL: config.openai.baseUrl } : undefined,
            streamUsage: true,
            timeout: config.timeoutMs,
            maxRetries: 1,
          }),
        };
      }
      case 'anthropic': {
        const name = modelName ?? config.anthropic.model;
        return {
          provider,
          name,
          idleTimeoutMs: config.timeoutMs,
          model: new ChatAnthropic!({
            model: name,
            apiKey: config.anthropic.apiKey,
            anthropicApiUrl: config.anthropic.baseUrl,
            maxTokens: 8192,
            streamUsage: true,
            clientOptions: { timeout: config.timeoutMs, maxRetries: 1 },
          }),
        };
      }
      case 'offline':
        return { provider, name: OFFLINE_MODEL_NAME, idleTimeoutMs: config.timeoutMs, model: new OfflineChatModel({ tokenDelayMs: config.offlineTokenDelayMs }) };
    }
  };
  return {
    forAgent(agent) {
      const { provider, modelName } = choiceOf(config, agent);
      const key = `${provider}:${modelName ?? ''}`;
      let choice = cache.get(key);
      if (!choice) {
        choice = build(provider, modelName);
        cache.set(key, choice);
      }
      return choice;
    },
  };
}

/** A provider that answers every agent with the given model (tests, benchmarks). */
export function fixedModelProvider(model: BaseChatModel, name: string, provider: ProviderName = 'offline'): ModelProvider {
  return { forAgent: () => ({ model, name, provider }) };
}
