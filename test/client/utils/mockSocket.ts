import { Server, type Client } from 'mock-socket';

export interface MockSocketServer {
  server: Server;
  url: string;
  /** Every message the client sent, parsed as JSON when it is JSON. */
  received: unknown[];
  /** When each of `received` arrived (performance.now()). */
  receivedAt: number[];
  /** Resolves with the next message a client sends (delivery is asynchronous in mock-socket). */
  nextMessage: () => Promise<unknown>;
  /** Resolves with the next client that connects (or the one already connected). */
  connection: () => Promise<Client>;
  /** Sends a message to every connected client (objects as JSON). */
  send: (message: unknown) => void;
  /** Closes the clients with `code` and stops the server. */
  close: (code?: number) => void;
}

const open = new Set<MockSocketServer>();

/**
 * A mock-socket server at `url` (e.g. `ws://localhost/api/sandboxes/7/ws`). While it lives, the
 * global `WebSocket` is mock-socket's, so the code under test needs no change. `closeMockSockets()`
 * (run after each test by setup.ts) stops any server a test left open.
 */
export function createMockSocketServer(url: string): MockSocketServer {
  const server = new Server(url);
  const received: unknown[] = [];
  const receivedAt: number[] = [];
  const clients: Client[] = [];
  const waiting: Array<(client: Client) => void> = [];
  const messageWaiters: Array<(message: unknown) => void> = [];

  server.on('connection', (socket) => {
    clients.push(socket);
    socket.on('message', (data) => {
      const text = typeof data === 'string' ? data : String(data);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = text;
      }
      received.push(message);
      receivedAt.push(performance.now());
      messageWaiters.splice(0).forEach((resolve) => resolve(message));
    });
    waiting.splice(0).forEach((resolve) => resolve(socket));
  });

  const mock: MockSocketServer = {
    server,
    url,
    received,
    receivedAt,
    nextMessage: () => new Promise((resolve) => messageWaiters.push(resolve)),
    connection: () =>
      clients.length > 0 ? Promise.resolve(clients[clients.length - 1]) : new Promise((resolve) => waiting.push(resolve)),
    send: (message) => {
      const text = typeof message === 'string' ? message : JSON.stringify(message);
      clients.forEach((client) => client.send(text));
    },
    close: (code = 1000) => {
      if (!open.has(mock)) return;
      open.delete(mock);
      clients.forEach((client) => client.close({ code, reason: '', wasClean: code === 1000 }));
      server.stop();
    },
  };
  open.add(mock);
  return mock;
}

export function closeMockSockets(): void {
  [...open].forEach((mock) => mock.close());
}
