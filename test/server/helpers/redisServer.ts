import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './freePort';

/** Starts Debian's redis-server on a free port, nothing kept on disk; resolves once it answers PING. */
export async function startRedis(dir: string, port?: number): Promise<{ url: string; child: ChildProcess }> {
  port ??= await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
    detached: true,
  });
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (is Debian's redis-server installed?)`);
    const answered = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (answered) return { url: `redis://127.0.0.1:${port}`, child };
    if (Date.now() > until) throw new Error('redis-server did not answer within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
