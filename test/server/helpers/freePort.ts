import net from 'node:net';

/** A TCP port on 127.0.0.1 nothing listens on now, for a server process a test starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `server` (an HTTP or SMTP sink a test runs) on a free 127.0.0.1 port and gives the port. */
export const listenOnLoopback = (server: Pick<net.Server, 'listen' | 'address'>): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
