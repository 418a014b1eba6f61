import { HumanMessage, SystemMessage, type AIMessageChunk } from '@langchain/core/messages';
import { createModelProvider, type ModelConfig } from '../../../src/server/agents/models';
import { OFFLINE_MODEL_NAME } from '../../../src/server/agents/offline/offlineChatModel';
import { startModelWireServer, type ModelWireServer } from '../helpers/modelWireServer';

const tool = {
  type: 'function' as const,
  function: { name: 'update_requirements', description: 'Save the requirements', parameters: { type: 'object', properties: { ready_to_continue: { type: 'boolean' } }, required: ['ready_to_continue'] } },
};

function config(overrides: Partial<ModelConfig>): ModelConfig {
  return {
    provider: 'auto',
    openai: { apiKey: undefined, baseUrl: undefined, model: 'gpt-4o-mini' },
    anthropic: { apiKey: undefined, baseUrl: undefined, model: 'claude-sonnet-4-5' },
    perAgent: {},
    offlineTokenDelayMs: 0,
    timeoutMs: 10_000,
    ...overrides,
  };
}

async function streamAll(model: ReturnType<Awaited<ReturnType<typeof createModelProvider>>['forAgent']>['model']): Promise<{ chunks: AIMessageChunk[]; full: AIMessageChunk }> {
  const bound = model.bindTools!([tool]);
  const chunks: AIMessageChunk[] = [];
  for await (const c of await bound.stream([new SystemMessage('Role: requirements'), new HumanMessage('I need n8n')])) chunks.push(c as AIMessageChunk);
  return { chunks, full: chunks.reduce((a, b) => a.concat(b)) };
}

describe('model providers against a local server speaking their wire protocols', () => {
  let wire: ModelWireServer;
  beforeAll(async () => {
    wire = await startModelWireServer();
  });
  afterAll(() => wire.close());

  test('no configuration: the offline planner answers', async () => {
    const choice = (await createModelProvider(config({}))).forAgent('requirements');
    expect(choice.provider).toBe('offline');
    expect(choice.name).toBe(OFFLINE_MODEL_NAME);
  });

  test('OpenAI-compatible endpoint: streamed text, tool call and usage', async () => {
    const provider = await createModelProvider(config({ openai: { apiKey: 'sk-test', baseUrl: `${wire.url}/v1`, model: 'gpt-4o-mini' } }));
    const choice = provider.forAgent('requirements');
    expect(choice).toMatchObject({ provider: 'openai', name: 'gpt-4o-mini' });
    const { chunks, full } = await streamAll(choice.model);
    expect(chunks.filter((c) => c.content).map((c) => c.content)).toEqual(['Which', ' region', ' should', ' the', ' server', ' be', ' in?']);
    expect(full.tool_calls).toEqual([expect.objectContaining({ name: 'update_requirements', args: { ready_to_continue: false }, id: 'call_Qm3kJ2' })]);
    expect(full.usage_metadata).toMatchObject({ input_tokens: 412, output_tokens: 23, total_tokens: 435 });
    const request = wire.requests.at(-1)!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
    expect((request.body.tools as unknown[]).length).toBe(1);
  });

  test('OpenAI-compatible endpoint without a key (Ollama, vLLM)', async () => {
    const choice = (await createModelProvider(config({ openai: { apiKey: undefined, baseUrl: `${wire.url}/v1`, model: 'llama3.1' } }))).forAgent('architect');
    expect(choice).toMatchObject({ provider: 'openai', name: 'llama3.1' });
    const { full } = await streamAll(choice.model);
    expect(full.usage_metadata?.output_tokens).toBe(23);
  });

  test('Anthropic: streamed text, tool_use and usage', async () => {
    const provider = await createModelProvider(config({ anthropic: { apiKey: 'sk-ant-test', baseUrl: wire.url, model: 'claude-sonnet-4-5' } }));
    const choice = provider.forAgent('implementation');
    expect(choice).toMatchObject({ provider: 'anthropic', name: 'claude-sonnet-4-5' });
    const { chunks, full } = await streamAll(choice.model);
    const text = chunks.map((c) => (typeof c.content === 'string' ? c.content : c.content.map((p) => ('text' in p ? p.text : '')).join(''))).join('');
    expect(text).toBe('Which region should the server be in?');
    expect(full.tool_calls).toEqual([expect.objectContaining({ name: 'update_requirements', args: { ready_to_continue: false } })]);
    // message_delta's output_tokens is cumulative (31); @langchain/anthropic adds message_start's 1 to it.
    expect(full.usage_metadata).toMatchObject({ input_tokens: 512, output_tokens: 32 });
    const request = wire.requests.at(-1)!;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe('sk-ant-test');
    expect(request.body).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, system: 'Role: requirements' });
  });

  test('per-agent choice: provider:model overrides the default', async () => {
    const provider = await createModelProvider(
      config({
        openai: { apiKey: 'sk-test', baseUrl: `${wire.url}/v1`, model: 'gpt-4o-mini' },
        anthropic: { apiKey: 'sk-ant', baseUrl: wire.url, model: 'claude-sonnet-4-5' },
        perAgent: { architect: 'openai:gpt-4o', analyzer: 'offline:' },
      }),
    );
    expect(provider.forAgent('requirements')).toMatchObject({ provider: 'anthropic', name: 'claude-sonnet-4-5' });
    expect(provider.forAgent('architect')).toMatchObject({ provider: 'openai', name: 'gpt-4o' });
    expect(provider.forAgent('analyzer')).toMatchObject({ provider: 'offline', name: OFFLINE_MODEL_NAME });
  });
});
