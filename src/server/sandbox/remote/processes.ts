import { randomUUID } from 'node:crypto';
import { SandboxError, type ExecOptions, type ExecResult, type SandboxDriver, type SandboxPty, type SandboxRef, type ShellOptions } from '../driver';
import { execTracker } from '../execTracker';
import { commitStep, history, killableArgv, killArgv, stdinKillableArgv, type RunInside } from './workspace';

/**
 * The processes of the container drivers (docker, kubernetes): what runs to completion, the step
 * commands with their timeout and cancel, and the tty shells, with every running one tracked per project
 * so that stop and close end them. A driver supplies only its transport: how a non-tty exec streams its
 * output and exit code, and how a tty exec is attached.
 */

/** One non-tty exec: each chunk of output as it arrives, then the exit code (null when unknown). */
export type ExecStream = (
  sandbox: SandboxRef,
  argv: string[],
  options: {
    env?: Record<string, string>;
    onText: (text: string, stream: 'stdout' | 'stderr') => void;
    /** Aborting drops the connection at once (the caller has killed the command another way). */
    signal?: AbortSignal;
    /**
     * Attaches stdin: aborting writes a line to it and drops the connection, which a `stdinKillableArgv`
     * command reads as its kill (only for drivers with `killThroughStdin`).
     */
    killSignal?: AbortSignal;
    /** Bytes written to the exec's stdin before anything else (a step's command: ../commandInput.ts). */
    stdin?: Buffer;
  },
) => Promise<number | null>;

/** An attached tty exec, as the shell drives it. */
export interface TtyConnection {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stops reading, so that the shell blocks on its output (flow control). */
  pause(): void;
  resume(): void;
  /** Drops the connection (the shell gets SIGHUP). */
  close(): void;
  /** Settles with the shell's exit code when the connection ends; null when unknown. */
  readonly exited: Promise<number | null>;
}

export type TtyConnect = (
  sandbox: SandboxRef,
  argv: string[],
  options: { env: Record<string, string>; cols: number; rows: number; onData: (data: string) => void },
) => Promise<TtyConnection>;

export interface ContainerProcessesOptions {
  execStream: ExecStream;
  connectTty: TtyConnect;
  /** Throws SandboxError('not_running') when the sandbox cannot run anything. */
  requireRunning: (sandbox: SandboxRef) => Promise<void>;
  execTimeoutMs: number;
  maxOutputChars: number;
  /**
   * Kill step commands through their stdin (`stdinKillableArgv`) rather than through a second exec. The
   * kill then needs no new process in the sandbox, so it still works when a command has used up the
   * sandbox's pids limit (a fork bomb). Needs an exec whose stdin can be written and dropped.
   */
  killThroughStdin?: boolean;
}

export interface ContainerProcesses {
  run: RunInside;
  /** Kills every exec and shell of a project (before a stop). */
  end(projectId: number): void;
  /** The driver members every container driver answers alike: execs, shells, the step history, shutdown. */
  members: Pick<SandboxDriver, 'exec' | 'shell' | 'commitStep' | 'history' | 'close'>;
}

/** The extra environment of a terminal shell. */
const TTY_ENV = { TERM: 'xterm-256color', PS1: '\\u@sandbox:\\w\\$ ' };

export function createContainerProcesses(options: ContainerProcessesOptions): ContainerProcesses {
  const { execStream, connectTty, requireRunning } = options;
  /** Kills of running execs and shells, per project. */
  const live = new Map<number, Set<() => void>>();

  const track = (projectId: number, kill: () => void): (() => void) => {
    let set = live.get(projectId);
    if (!set) live.set(projectId, (set = new Set()));
    set.add(kill);
    return () => set.delete(kill);
  };

  const end = (projectId: number): void => {
    for (const kill of live.get(projectId) ?? []) kill();
    live.delete(projectId);
  };

  const run: RunInside = async (s, argv, opts = {}) => {
    let stdout = '';
    let stderr = '';
    const code = await execStream(s, argv, {
      env: opts.env,
      onText: (text, stream) => (stream === 'stdout' ? (stdout += text) : (stderr = (stderr + text).slice(-10_000))),
    });
    return { code, stdout, stderr };
  };

  /** Kills what a `killableArgv` exec started, through a second exec. */
  const killInside = (s: SandboxRef, pidFile: string): Promise<void> =>
    run(s, killArgv(pidFile)).then(
      () => undefined,
      () => undefined,
    );

  const exec = async (s: SandboxRef, command: string, opts: ExecOptions = {}): Promise<ExecResult> => {
    await requireRunning(s);
    const pidFile = `/tmp/.exec-${randomUUID()}`;
    const abort = new AbortController();
    const kill = options.killThroughStdin
      ? (): void => abort.abort()
      : (): void => {
          void killInside(s, pidFile).finally(() => abort.abort());
        };
    const tracker = execTracker(opts, { timeoutMs: options.execTimeoutMs, maxOutput: options.maxOutputChars }, kill);
    const untrack = track(s.projectId, kill);
    try {
      const wrapped = options.killThroughStdin ? stdinKillableArgv(command) : killableArgv(command, pidFile);
      const stops = options.killThroughStdin ? { killSignal: abort.signal } : { signal: abort.signal };
      const code = await execStream(s, wrapped.argv, { env: opts.env, onText: tracker.chunk, stdin: wrapped.stdin, ...stops });
      return tracker.finish(code);
    } catch (err) {
      if (tracker.stopped) return tracker.finish(null);
      tracker.finish(null);
      throw err instanceof SandboxError ? err : new SandboxError('failed', (err as Error).message);
    } finally {
      untrack();
    }
  };

  /**
   * A login shell over a tty exec. The exec is attached asynchronously: input typed before it is
   * attached is queued. Killing drops the connection (the shell gets SIGHUP) and kills its session.
   */
  const shell = (s: SandboxRef, opts: ShellOptions): SandboxPty => {
    const dataListeners = new Set<(data: string) => void>();
    const exitListeners = new Set<(event: { exitCode: number; signal?: number }) => void>();
    const pidFile = `/tmp/.shell-${randomUUID()}`;
    let connection: TtyConnection | null = null;
    let queued: string[] = [];
    let size = { cols: opts.cols, rows: opts.rows };
    let paused = false;
    let exited = false;
    let killed = false;

    const exit = (exitCode: number): void => {
      if (exited) return;
      exited = true;
      untrack();
      // Killed by us: reported like node-pty's SIGKILL, whatever the runtime has noted by then.
      exitListeners.forEach((l) => l(killed ? { exitCode: 0, signal: 9 } : { exitCode }));
    };
    const kill = (): void => {
      killed = true;
      connection?.close();
      void killInside(s, pidFile);
    };
    const untrack = track(s.projectId, kill);

    void (async () => {
      await requireRunning(s);
      const attached = await connectTty(s, ['bash', '-c', 'echo $$ > "$1"; exec bash -l', 'shell', pidFile], {
        env: { ...TTY_ENV, ...opts.env },
        ...size,
        onData: (data) => dataListeners.forEach((l) => l(data)),
      });
      connection = attached;
      if (killed) attached.close();
      if (paused) attached.pause();
      attached.resize(size.cols, size.rows);
      for (const data of queued) attached.write(data);
      queued = [];
      exit((await attached.exited) ?? 1);
    })().catch(() => exit(1));

    return {
      pid: 0,
      write(data) {
        if (connection) connection.write(data);
        else queued.push(data);
      },
      resize(cols, rows) {
        size = { cols, rows };
        connection?.resize(cols, rows);
      },
      pause() {
        paused = true;
        connection?.pause();
      },
      resume() {
        paused = false;
        connection?.resume();
      },
      onData(listener) {
        dataListeners.add(listener);
        return { dispose: () => dataListeners.delete(listener) };
      },
      onExit(listener) {
        exitListeners.add(listener);
        return { dispose: () => exitListeners.delete(listener) };
      },
      kill,
    };
  };

  return {
    run,
    end,
    members: {
      exec,
      shell,
      async commitStep(s, stepNumber, command, secretForms) {
        await requireRunning(s);
        return commitStep(run, s, stepNumber, command, secretForms);
      },
      async history(s, limit = 200) {
        await requireRunning(s);
        return history(run, s, limit);
      },
      async close() {
        for (const projectId of [...live.keys()]) end(projectId);
      },
    },
  };
}
