import type http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** A fake API server listening on a free loopback port. */
export interface Listening {
  port: number;
  /** Destroys every open connection (upgraded ones too), then closes the server. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 and keeps every connection, so that closing never waits for a client's keep-alive. */
export async function listenOnLoopback(
  server: http.Server,
  onUpgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void,
): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  server.on('upgrade', onUpgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
