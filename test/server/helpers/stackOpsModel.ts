import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { stackModelOf, STACK_MODEL_TAG } from '../../../src/server/agents/offline/panelEdits';
import { contextBlock, roleOf, TOOL_NAMES } from '../../../src/server/agents/offline/planner';
import { factsOfModel, modelOfStack, renderStack } from '../../../src/server/agents/offline/stackModelBridge';
import { renderArchitecturePlan, renderImplementationPlan } from '../../../src/server/agents/offline/documents';
import { PLANNING_PROMPTS } from '../../../src/shared/constants/planning';
import { emptyStackModel } from '../../../src/shared/stackModel';
import { opsBetween } from '../../../src/server/agents/offline/modelOps';

/**
 * An OpenAI-compatible model (a real HTTP server speaking `POST /v1/chat/completions`, streamed) that
 * answers the requirements agent with stack operations as tool calls, the way a real model is asked to:
 * it reads the person's words (with the offline planner's reading, so the same behaviour tests apply),
 * compares the stack it understood with the stack model in the system prompt, and calls one operation per
 * difference. After the tools answered it replies in words, quoting any `Error:` it got back.
 *
 * As the architecture or implementation agent it reads only the turn's message as a correction to the
 * stack model it is given (its thread was applied before), calls the operations, then, with the model as
 * it then stands in the system prompt, saves the plans rendered from it (the architecture first, for the
 * implementation agent both), and finally says what the tools answered: what changed, and any error.
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

export { opsBetween };

type Reply = { calls: Array<{ name: string; arguments: Record<string, unknown> }> } | { text: string };

/** The tool answers since the person's last message. */
const answersOfTurn = (messages: ChatMessage[]): string[] =>
  messages.slice(messages.map((m) => m.role).lastIndexOf('user') + 1).filter((m) => m.role === 'tool').map((m) => m.content ?? '');

/** The architecture or implementation agent: operations for the correction, then the plans, then words. */
function planAnswer(model: StackOpsModel, messages: ChatMessage[], system: string, role: 'architect' | 'implementation'): Reply {
  const current = stackModelOf(contextBlock(system, STACK_MODEL_TAG)) ?? emptyStackModel();
  const options = { slug: contextBlock(system, 'project_name') };
  const savePlans = (): Reply => {
    const stack = renderStack(current, options);
    return {
      calls: [
        { name: TOOL_NAMES.architecture, arguments: { plan: renderArchitecturePlan(stack) } },
        ...(role === 'implementation' ? [{ name: TOOL_NAMES.implementation, arguments: { plan: renderImplementationPlan(stack) } }] : []),
      ],
    };
  };
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const called = [...messages].reverse().find((m) => m.role === 'assistant')?.tool_calls?.map((c) => c.function.name) ?? [];
    if (!called.includes(TOOL_NAMES.architecture) && !called.includes(TOOL_NAMES.implementation)) return savePlans();
    const answers = answersOfTurn(messages);
    const errors = answers.filter((r) => r.startsWith('Error:'));
    const changed = answers.flatMap((r) => r.match(/^Applied \w+\. Changed: (.*?)\. (?:Components|$)/)?.[1] ?? []);
    return { text: [`Changed: ${changed.join('; ') || 'nothing'}.`, ...(errors.length ? [`Some changes could not be made: ${errors.join(' ')}`] : [])].join(' ') };
  }
  const said = last?.role === 'user' ? (last.content ?? '').trim() : '';
  const generate = role === 'architect' ? PLANNING_PROMPTS.generateArchitecturePlan : PLANNING_PROMPTS.generateImplementationPlan;
  if (!said || said === generate) return savePlans();
  const wanted = modelOfStack(composeStack(extractFacts([said], factsOfModel(current)), options));
  const calls = [...model.inject.splice(0), ...opsBetween(modelOfStack(renderStack(current, options)), wanted).map(({ op, ...args }) => ({ name: op, arguments: args }))];
  return calls.length ? { calls } : { text: 'Nothing to change.' };
}

/** What the fake decides for a request: tool calls for the person's words, or words after the tools answered. */
function answer(model: StackOpsModel, messages: ChatMessage[]): Reply {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content ?? '').join('\n');
  const role = roleOf(system);
  if (role === 'architect' || role === 'implementation') return planAnswer(model, messages, system, role);
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const results = messages.slice(messages.map((m) => m.role).lastIndexOf('assistant') + 1).map((m) => m.content ?? '');
    const errors = results.filter((r) => r.startsWith('Error:'));
    return { text: errors.length ? `Some changes could not be made: ${errors.join(' ')}` : `Done: ${results.length} change${results.length === 1 ? '' : 's'} to the stack.` };
  }
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
