import { AIMessageChunk, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { OfflineChatModel, OFFLINE_MODEL_NAME } from '../../../src/server/agents/offline/offlineChatModel';
import { TOOL_NAMES } from '../../../src/server/agents/offline/planner';

const tool = { type: 'function', function: { name: TOOL_NAMES.requirements, description: 'd', parameters: { type: 'object', properties: {} } } };

describe('OfflineChatModel', () => {
  test('streams token by token, then a tool call and usage_metadata', async () => {
    const model = new OfflineChatModel().bindTools([tool]);
    const chunks: AIMessageChunk[] = [];
    for await (const c of await model.stream([new SystemMessage('Role: requirements'), new HumanMessage('n8n with postgres on my VPS, no domain, light use')])) chunks.push(c);
    expect(chunks.length).toBeGreaterThan(10);
    const full = chunks.reduce((a, b) => a.concat(b));
    expect(full.tool_calls?.[0]?.name).toBe(TOOL_NAMES.requirements);
    expect(full.tool_calls?.[0]?.args.ready_to_continue).toBe(true);
    expect(full.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(full.usage_metadata?.output_tokens).toBeGreaterThan(chunks.length - 2);
    expect(full.response_metadata.model_name).toBe(OFFLINE_MODEL_NAME);
  });

  test('without the tool bound it only talks', async () => {
    const out = await new OfflineChatModel().invoke([new SystemMessage('Role: requirements'), new HumanMessage('hello')]);
    expect(String(out.content)).toContain('What should the server run');
    expect(out.tool_calls ?? []).toEqual([]);
  });

  test('stops at once when its AbortSignal fires', async () => {
    const controller = new AbortController();
    const model = new OfflineChatModel({ tokenDelayMs: 5 });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of await model.stream([new SystemMessage('Role: requirements'), new HumanMessage('a postgres VPS')], { signal: controller.signal })) {
          seen.push(String(c.content));
          if (seen.length === 3) controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(seen.length).toBeLessThanOrEqual(4);
  });
});
