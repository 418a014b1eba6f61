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

export interface ModelWireServer {
  url: string;
  requests: RecordedRequest[];
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
