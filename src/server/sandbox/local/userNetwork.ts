import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { applyEgressRules } from './egress';

/**
 * The sandbox's own network: bwrap starts the program in a fresh network namespace (`--unshare-all`,
 * no `--share-net`) and waits on `--block-fd` while slirp4netns gives that namespace a user-mode
 * network (tap0, 10.0.2.0/24, DNS at 10.0.2.3) with `--disable-host-loopback`. The sandbox reaches the
 * internet but not the host's loopback services (the database, Redis, this server) nor its abstract
 * unix sockets, and cannot listen on the host's ports. Before it does, rules in that namespace reject
 * the host's other addresses, link-local ranges and SANDBOX_DENY_CIDRS (./egress.ts). Without
 * slirp4netns the driver falls back to the host's network and says so once at start.
 */

/** The resolver inside the sandbox: slirp4netns's DNS forwarder (the host's may be on its loopback). */
export const SLIRP_RESOLV_CONF = 'nameserver 10.0.2.3\n';

/** How long a sandboxed program waits for its network before it starts without one. */
const READY_TIMEOUT_MS = 5_000;

export type NetworkMode = 'none' | 'slirp' | 'host';

/** Whether slirp4netns is installed (looked up once on PATH). */
export function slirpAvailable(): boolean {
  const found = spawnSync('slirp4netns', ['--version'], { stdio: 'ignore', timeout: 5_000 });
  return found.status === 0;
}

/** The bwrap options of a mode: `--share-net` for the host's network, the sync fds for slirp. */
export function networkArgs(mode: NetworkMode, fds = { info: 3, block: 4 }): string[] {
  if (mode === 'host') return ['--share-net'];
  if (mode === 'slirp') return ['--info-fd', String(fds.info), '--block-fd', String(fds.block)];
  return [];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until bwrap has brought up the namespace's loopback (its own netlink requests), so that
 * slirp4netns configuring tap0 at the same moment cannot make bwrap's requests fail ("loopback: Failed
 * RTM_NEWADDR"). Up means ::1 is listed for lo; without IPv6, 127.0.0.1 in the FIB and a moment more.
 */
async function loopbackReady(pid: string): Promise<void> {
  const until = Date.now() + 1_000;
  while (Date.now() < until) {
    try {
      if (/\slo\n/.test(fs.readFileSync(`/proc/${pid}/net/if_inet6`, 'utf8'))) return;
    } catch {
      try {
        if (fs.readFileSync(`/proc/${pid}/net/fib_trie`, 'utf8').includes('127.0.0.1')) return sleep(5);
      } catch {
        return sleep(20);
      }
    }
    await sleep(2);
  }
}

export interface NetworkLog {
  warn(message: string): void;
}

/**
 * Gives the network namespace of the bwrap whose `--info-fd` is `info` a slirp4netns network, then
 * releases it through its `--block-fd` (`block`). The program starts without a network if slirp4netns
 * fails or is late, never not at all. Returns a function that ends slirp4netns (call it when the
 * sandboxed program exits) and resolves once it has exited and been reaped, so that a shutdown leaves
 * no slirp4netns behind (it would otherwise linger a moment after this process, until its exit fd closes).
 */
export function attachSlirp(info: Readable, block: Writable, log: NetworkLog, extraDeny: string[] = []): () => Promise<void> {
  let slirp: ChildProcess | null = null;
  let released = false;
  let text = '';
  let pidSeen = false;
  const release = (): void => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    info.destroy();
    block.end('1');
  };
  const timer = setTimeout(() => {
    log.warn('The sandbox network was not ready in time; the program runs without a network.');
    release();
  }, READY_TIMEOUT_MS);
  info.on('error', () => undefined);
  block.on('error', () => undefined);
  info.setEncoding('utf8');
  info.on('data', (chunk: string) => {
    if (pidSeen || released) return;
    text += chunk;
    const pid = /"child-pid"\s*:\s*(\d+)/.exec(text)?.[1];
    if (!pid || pidSeen) return;
    pidSeen = true;
    // The namespaces are held at once: bwrap later nests a second user namespace (for the sandbox's uid),
    // in which slirp4netns would have no right to the network namespace ("setns: Operation not permitted").
    let namespaces: { net: number; user: number };
    try {
      namespaces = { net: fs.openSync(`/proc/${pid}/ns/net`, 'r'), user: fs.openSync(`/proc/${pid}/ns/user`, 'r') };
    } catch (err) {
      log.warn(`The sandbox's namespaces could not be opened (${(err as Error).message}); the program runs without a network.`);
      release();
      return;
    }
    // The egress rules go in before slirp4netns gives the namespace a way out; without them, no way out.
    void loopbackReady(pid)
      .then(() => (released ? undefined : applyEgressRules(namespaces, extraDeny)))
      .then(
        () => {
          if (!released) start(namespaces);
        },
        (err: Error) => {
          log.warn(`The sandbox's egress rules could not be set (${err.message}); the program runs without a network.`);
          release();
        },
      )
      .finally(() => {
        fs.closeSync(namespaces.net);
        fs.closeSync(namespaces.user);
      });
  });
  /** slirp4netns on the held namespaces: fd 5 the network, fd 6 the user namespace that owns it (root needs none). */
  const start = (namespaces: { net: number; user: number }): void => {
    const asRoot = process.getuid?.() === 0;
    const args = ['--configure', '--mtu=65520', '--disable-host-loopback', '--ready-fd=3', '--exit-fd=4', '--netns-type=path'];
    if (!asRoot) args.push('--userns-path=/proc/self/fd/6');
    slirp = spawn('slirp4netns', [...args, '/proc/self/fd/5', 'tap0'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe', namespaces.net, namespaces.user],
    });
    let stderr = '';
    slirp.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2_000)));
    slirp.stdio[3]!.once('data', release);
    slirp.once('error', (err) => {
      log.warn(`slirp4netns could not start (${err.message}); the program runs without a network.`);
      release();
    });
    slirp.once('exit', (code) => {
      if (!released) {
        log.warn(`slirp4netns exited with ${code}: ${stderr.trim().split('\n').join(' / ')}; the program runs without a network.`);
        release();
      }
    });
  };
  // bwrap closes its info fd once written: without a pid it failed to start, and nothing waits.
  info.once('end', () => {
    if (!pidSeen) release();
  });
  return () => {
    release();
    const running = slirp;
    if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // Closing its exit fd ends it; SIGKILL if it does not go at once.
    (running.stdio[4] as Writable | null)?.destroy();
    const kill = setTimeout(() => running.kill('SIGKILL'), 1_000);
    return exited.finally(() => clearTimeout(kill));
  };
}

/**
 * The pty shell cannot be given extra fds by node-pty, so its `--info-fd` and `--block-fd` are FIFOs
 * opened by a `sh` wrapper before it execs the sandbox's argv. Both ends are opened here first
 * (read-write, which never blocks on Linux), so neither side waits for the other to open.
 */
export function fifoWrapper(dir: string, argv: string[]): { file: string; args: string[]; info: Readable; block: Writable; cleanup(): void } {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stamp = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const infoPath = path.join(dir, `info-${stamp}`);
  const blockPath = path.join(dir, `block-${stamp}`);
  const made = spawnSync('mkfifo', ['-m', '600', infoPath, blockPath], { stdio: 'ignore' });
  if (made.status !== 0) throw new Error('mkfifo failed');
  const flags = fs.constants.O_RDWR | fs.constants.O_NONBLOCK;
  const info = new net.Socket({ fd: fs.openSync(infoPath, flags), readable: true, writable: false });
  const block = new net.Socket({ fd: fs.openSync(blockPath, flags), readable: false, writable: true });
  const cleanup = (): void => {
    info.destroy();
    block.destroy();
    fs.rmSync(infoPath, { force: true });
    fs.rmSync(blockPath, { force: true });
  };
  return {
    file: '/bin/sh',
    args: ['-c', 'i=$1 b=$2; shift 2; exec "$@" 3>"$i" 4<"$b"', 'sh', infoPath, blockPath, ...argv],
    info,
    block,
    cleanup,
  };
}
