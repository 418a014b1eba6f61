import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ModelWireServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'models');

/**
 * A local HTTP server that speaks the streaming wire protocols of OpenAI's chat completions
 * (`POST /v1/chat/completions`) and Anthropic's messages (`POST /v1/messages`), answering with recorded
 * streams (text, a tool call and usage) so that the real client libraries run without a key or network.
 */
export async function startModelWireServer(options: { chunkDelayMs?: number } = {}): Promise<ModelWireServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', async () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
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
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
