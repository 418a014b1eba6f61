import { PassThrough, Writable } from 'node:stream';
import type { Exec } from '@kubernetes/client-node';
import { SandboxError } from '../driver';

/** Which container of which pod an exec runs in. */
export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

/** The Status the API server sends on the error channel (3) when the command has ended. */
interface ExecStatus {
  status?: string;
  message?: string;
  details?: { causes?: Array<{ reason?: string; message?: string }> };
}

/** One exec, attached: input, terminal size and flow control, and how it ended. */
export interface PodExecution {
  /** Data for the command's stdin (channel 0); settles once handed to the socket, so a loop of sends is flow-controlled. */
  send(data: Buffer): Promise<void>;
  /** A tty's new size (channel 4). */
  resize(cols: number, rows: number): void;
  /** Stops reading the socket: the command blocks on its output once the buffers between are full. */
  pause(): void;
  resume(): void;
  /** Drops the connection at once (the command is not killed by this: the caller kills it). */
  close(): void;
  /**
   * The exit code from the final Status (`Success` is 0, a `Failure` carries it as the ExitCode cause);
   * null when the connection ended without one. Rejects when the Status is a failure of the exec itself.
   *
   * @example
   *   // channel 3: {"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"2"}]}}  →  2
   */
  readonly exitCode: Promise<number | null>;
}

const STDIN = 0;
const RESIZE = 4;
const frame = (channel: number, data: Buffer): Buffer => Buffer.concat([Buffer.from([channel]), data]);

function exitCodeOf(status: ExecStatus): number {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  if (cause && Number.isInteger(code)) return code;
  throw new SandboxError('failed', `The command could not run: ${status.message ?? JSON.stringify(status)}`);
}

/**
 * Starts `argv` in the pod through the API server's exec WebSocket (client-node negotiates
 * `v5.channel.k8s.io` down to `channel.k8s.io`; every binary frame starts with its channel byte: 0 stdin,
 * 1 stdout, 2 stderr, 3 the final Status, 4 resize). stdin is always attached but never closed — the v4
 * protocol cannot half-close it — so a command reads exactly what it expects (`head -c N`). Channel 0 is
 * written here directly rather than through client-node's stdin pump, so that each send waits for the
 * socket (bounded memory for a large restore).
 */
export async function openPodExec(
  exec: Exec,
  target: ExecTarget,
  argv: string[],
  options: { tty: boolean; onStdout: (chunk: Buffer) => void; onStderr?: (chunk: Buffer) => void },
): Promise<PodExecution> {
  const sink = (handle: (chunk: Buffer) => void): Writable =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        handle(chunk);
        callback();
      },
    });
  const stdin = new PassThrough();
  let status: ExecStatus | null = null;
  const socket = await exec.exec(
    target.namespace,
    target.pod,
    target.container,
    argv,
    sink(options.onStdout),
    // A tty merges stderr into its output; the API refuses both at once.
    options.tty ? null : sink(options.onStderr ?? (() => undefined)),
    stdin,
    options.tty,
    (s) => (status = s as ExecStatus),
  );
  const exitCode = new Promise<number | null>((resolve, reject) => {
    socket.once('close', () => {
      stdin.destroy();
      if (!status) return resolve(null);
      try {
        resolve(exitCodeOf(status));
      } catch (err) {
        reject(err);
      }
    });
  });
  // The connection's end is reported through exitCode; an error event alone must not crash the server.
  socket.on('error', () => undefined);
  return {
    send: (data) =>
      new Promise<void>((resolve, reject) => {
        if (socket.readyState !== socket.OPEN) return reject(new SandboxError('failed', 'The exec connection is closed'));
        socket.send(frame(STDIN, data), (err) => (err ? reject(err) : resolve()));
      }),
    resize(cols, rows) {
      if (socket.readyState === socket.OPEN) socket.send(frame(RESIZE, Buffer.from(JSON.stringify({ Width: cols, Height: rows }))));
    },
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: () => socket.terminate(),
    exitCode,
  };
}

/**
 * How a non-tty exec receives its extra environment: as `export` lines on stdin, read by a small bash
 * loader, never on the exec URL (which API server audit logs record). The loader then `exec`s the
 * program, with stdin from /dev/null unless the program is to read the rest of stdin itself.
 *
 * @example
 *   withEnv(['git', 'log'], { A: "it's" })
 *   // argv:  ['bash', '-c', 'IFS= LC_ALL=C read -r -N "$1" e || exit 125; eval "$e" || exit 125; shift; exec "$@" </dev/null', 'env', '19', 'git', 'log']
 *   // stdin: "export A='it'\''s'\n"
 */
export function withEnv(argv: string[], env: Record<string, string> = {}, keepStdin = false): { argv: string[]; stdin: Buffer } {
  const stdin = envScript(env);
  // bash's read takes a pipe one byte at a time, so the program still finds what follows on stdin (`head -c`
  // reads a whole block and drops the rest); the C locale makes -N count bytes.
  const loader = `IFS= LC_ALL=C read -r -N "$1" e || exit 125; eval "$e" || exit 125; shift; exec "$@"${keepStdin ? '' : ' </dev/null'}`;
  return { argv: ['bash', '-c', loader, 'env', String(stdin.length), ...argv], stdin };
}

/** `export NAME='value'` lines that bash sources to set `env` (names checked, values single-quoted). */
export function envScript(env: Record<string, string>): Buffer {
  const script = Object.entries(env)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new SandboxError('failed', `Invalid environment variable name: ${name}`);
      return `export ${name}='${value.replace(/'/g, `'\\''`)}'\n`;
    })
    .join('');
  return Buffer.from(script, 'utf8');
}
