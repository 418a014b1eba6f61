import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { stackModelOf, STACK_MODEL_TAG } from '../../../src/server/agents/offline/panelEdits';
import { contextBlock } from '../../../src/server/agents/offline/planner';
import { modelOfStack } from '../../../src/server/agents/offline/stackModelBridge';
import { emptyStackModel, type Exposure, type StackModel } from '../../../src/shared/stackModel';
import type { StackOp } from '../../../src/shared/stackOps';

/**
 * An OpenAI-compatible model (a real HTTP server speaking `POST /v1/chat/completions`, streamed) that
 * answers the requirements agent with stack operations as tool calls, the way a real model is asked to:
 * it reads the person's words (with the offline planner's reading, so the same behaviour tests apply),
 * compares the stack it understood with the stack model in the system prompt, and calls one operation per
 * difference. After the tools answered it replies in words, quoting any `Error:` it got back.
 */

export interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface StackOpsModel {
  url: string;
  /** Every request's messages and tool names, in order. */
  requests: Array<{ messages: ChatMessage[]; tools: string[] }>;
  /** Calls sent before the ones it works out, once, with the next user message (a bad operation, say). */
  inject: Array<{ name: string; arguments: Record<string, unknown> }>;
  close(): Promise<void>;
}

const proxied = (e: Exposure): e is Extract<Exposure, { via: 'proxy' }> => e.via === 'proxy';

/** The operations that turn `current` into `wanted`, one per difference the person can have asked for. */
export function opsBetween(current: StackModel, wanted: StackModel): StackOp[] {
  const ops: StackOp[] = [];
  const has = (m: StackModel, name: string) => m.components.find((c) => c.name === name);
  for (const x of wanted.excluded) if (!current.excluded.includes(x)) ops.push({ op: 'exclude', name: x });
  for (const c of current.components) {
    if (has(wanted, c.name) || c.auto || wanted.excluded.includes(c.name)) continue;
    ops.push(c.source.kind === 'catalogue' ? { op: 'exclude', name: c.source.id } : { op: 'removeComponent', name: c.name });
  }
  // What others reach is added first, so a product's need is met by the one the person named, not a default.
  const reached = new Set(wanted.links.map((l) => l.to));
  const order = [...wanted.components].sort((a, b) => Number(!reached.has(a.name)) - Number(!reached.has(b.name)));
  for (const c of order) {
    if (has(current, c.name) || c.auto) continue;
    const { name: _n, keepPrivate: _k, auto: _a, ...rest } = c;
    ops.push(c.source.kind === 'catalogue' ? { op: 'addComponent', product: c.source.id, ...(c.name !== c.source.id ? { name: c.name } : {}) } : { op: 'addComponent', custom: rest.source as Extract<typeof c.source, { kind: 'image' }>, name: c.name });
  }
  for (const c of wanted.components) if (c.keepPrivate && !has(current, c.name)?.keepPrivate) ops.push({ op: 'makePrivate', component: c.name });
  for (const e of wanted.exposures.filter(proxied)) {
    if (!e.domain || has(wanted, e.component)?.auto) continue;
    const now = current.exposures.filter(proxied).find((x) => x.component === e.component);
    if (now?.domain !== e.domain) ops.push({ op: 'setDomain', component: e.component, domain: e.domain, tls: e.tls });
  }
  for (const e of wanted.exposures) {
    if (e.via !== 'port' || e.bind === 'loopback') continue;
    if (!current.exposures.some((x) => x.via === 'port' && x.component === e.component && x.hostPort === e.hostPort)) ops.push({ op: 'setPort', component: e.component, hostPort: e.hostPort });
  }
  if (wanted.target && JSON.stringify(wanted.target) !== JSON.stringify(current.target)) ops.push({ op: 'setTarget', target: wanted.target });
  for (const u of wanted.unknowns) {
    if (current.unknowns.some((x) => x.name.toLowerCase() === u.name.toLowerCase() && x.status === u.status)) continue;
    ops.push(u.status === 'skipped' ? { op: 'skipUnknown', name: u.name } : { op: 'askUnknown', name: u.name });
  }
  return ops;
}

/** What the fake decides for a request: tool calls for the person's words, or words after the tools answered. */
function answer(model: StackOpsModel, messages: ChatMessage[]): { calls: Array<{ name: string; arguments: Record<string, unknown> }> } | { text: string } {
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const results = messages.slice(messages.map((m) => m.role).lastIndexOf('assistant') + 1).map((m) => m.content ?? '');
    const errors = results.filter((r) => r.startsWith('Error:'));
    return { text: errors.length ? `Some changes could not be made: ${errors.join(' ')}` : `Done: ${results.length} change${results.length === 1 ? '' : 's'} to the stack.` };
  }
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content ?? '').join('\n');
  const said = messages.filter((m) => m.role === 'user').map((m) => m.content ?? '');
  const current = stackModelOf(contextBlock(system, STACK_MODEL_TAG)) ?? emptyStackModel();
  const facts = extractFacts(said);
  facts.acceptsDefaults = true;
  const wanted = modelOfStack(composeStack(facts));
  const calls = [...model.inject.splice(0), ...opsBetween(current, wanted).map(({ op, ...args }) => ({ name: op, arguments: args }))];
  return calls.length ? { calls } : { text: 'Nothing to change.' };
}

let ids = 0;

function stream(reply: ReturnType<typeof answer>): string {
  const id = `chatcmpl-stackops-${(ids += 1)}`;
  const chunk = (delta: object, finish: string | null = null, usage: object | null = null): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1731000000, model: 'gpt-4o-mini', choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage })}\n\n`;
  const body =
    'calls' in reply
      ? chunk({
          role: 'assistant',
          content: null,
          tool_calls: reply.calls.map((c, index) => ({ index, id: `call_stackops_${(ids += 1)}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
        }) + chunk({}, 'tool_calls')
      : chunk({ role: 'assistant', content: reply.text }) + chunk({}, 'stop');
  return `${body}${chunk({}, null, { prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 })}data: [DONE]\n\n`;
}

export async function startStackOpsModel(): Promise<StackOpsModel> {
  const model: StackOpsModel = { url: '', requests: [], inject: [], close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as { messages: ChatMessage[]; tools?: Array<{ function: { name: string } }> };
      model.requests.push({ messages: body.messages, tools: (body.tools ?? []).map((t) => t.function.name) });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.end(stream(answer(model, body.messages)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return model;
}
