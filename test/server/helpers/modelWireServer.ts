import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** An error answer of the provider's API, e.g. `{ status: 401, body: { error: { type: 'invalid_api_key' } } }`. */
export interface WireFailure {
  status: number;
  body: Record<string, unknown>;
}

/** One scripted OpenAI answer: a tool call (arguments as an object), or text. */
export type ScriptedAnswer = { toolCall: { name: string; arguments: Record<string, unknown> } } | { text: string };

export interface ModelWireServer {
  url: string;
  requests: RecordedRequest[];
  /** OpenAI answers given in order, one per request, before the recorded stream is used again. */
  script: ScriptedAnswer[];
  /** While set, every model request is answered with this error instead of a recorded stream. */
  failure: WireFailure | null;
  close(): Promise<void>;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'models');

/**
 * A local HTTP server that speaks the streaming wire protocols of OpenAI's chat completions
 * (`POST /v1/chat/completions`) and Anthropic's messages (`POST /v1/messages`), answering with recorded
 * streams (text, a tool call and usage) so that the real client libraries run without a key or network;
 * with `failure` set, it answers as the provider does when it refuses a request.
 */
export async function startModelWireServer(options: { chunkDelayMs?: number } = {}): Promise<ModelWireServer> {
  const requests: RecordedRequest[] = [];
  const wire: ModelWireServer = {
    url: '',
    requests,
    script: [],
    failure: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', async () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
      if (wire.failure) {
        res.writeHead(wire.failure.status, { 'content-type': 'application/json', 'retry-after': '0' }).end(JSON.stringify(wire.failure.body));
        return;
      }
      const scripted = req.url?.endsWith('/chat/completions') ? wire.script.shift() : undefined;
      if (scripted) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.end(openAiStream(scripted));
        return;
      }
      const file = req.url?.endsWith('/chat/completions') ? 'openai-chat-stream.sse' : req.url?.endsWith('/messages') ? 'anthropic-messages-stream.sse' : undefined;
      if (!file) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const frame of fs.readFileSync(path.join(FIXTURES, file), 'utf8').split(/(?<=\n\n)/)) {
        res.write(frame);
        if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  wire.url = `http://127.0.0.1:${port}`;
  return wire;
}

/** Numbers the scripted completions and tool calls: their ids are unique, as a provider's are. */
let scriptedCalls = 0;

/** The chat-completions stream of one scripted answer, framed as OpenAI sends it (content or a tool call, then usage). */
function openAiStream(answer: ScriptedAnswer): string {
  // A completion's id becomes its message's id in the thread: unique, as a provider's are.
  const id = `chatcmpl-script-${(scriptedCalls += 1)}`;
  const chunk = (delta: object, finish: string | null = null, usage: object | null = null): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1731000000, model: 'gpt-4o-mini', choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage })}\n\n`;
  const body =
    'toolCall' in answer
      ? chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_script_${(scriptedCalls += 1)}`, type: 'function', function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) } }] }) +
        chunk({}, 'tool_calls')
      : chunk({ role: 'assistant', content: answer.text }) + chunk({}, 'stop');
  return `${body}${chunk({}, null, { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 })}data: [DONE]\n\n`;
}
