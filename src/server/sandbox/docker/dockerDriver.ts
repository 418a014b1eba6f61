import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGzip } from 'node:zlib';
import type Docker from 'dockerode';
import type { ContainerStatusName } from '../../../shared/constants/sandbox';
import {
  SandboxError,
  type BackupResult,
  type ExecOptions,
  type ExecResult,
  type SandboxDriver,
  type SandboxPty,
  type SandboxRef,
  type ShellOptions,
} from '../driver';
import {
  commitStep,
  createFreshWorkspace,
  execTracker,
  history,
  homeOf,
  killableArgv,
  killArgv,
  resolveFolder,
  SANDBOX_UID,
  sandboxEnv,
  workspaceIsEmpty,
  workspaceOf,
  type RunInside,
} from '../remote/workspace';
import { tarToZip } from '../tarToZip';
import { createDemuxer } from './demux';

export interface DockerDriverOptions {
  /** The engine, e.g. `new Docker({ socketPath: '/var/run/docker.sock' })`. */
  docker: Docker;
  /** DATA_DIR/sandboxes: `<projectId>/backups/` holds the workspace archives. */
  root: string;
  /** Image of every sandbox; needs bash, git, tar, coreutils and util-linux (`setsid`). */
  image: string;
  /** OCI runtime, e.g. `runsc` for gVisor; the engine's default when absent. */
  runtime?: string;
  network: boolean;
  /** Memory (and memory+swap) limit in MiB; 0 for none. */
  memoryMb: number;
  /** CPUs, fractional allowed; 0 for none. */
  cpus: number;
  /** Processes in the container; 0 for none. */
  pidsLimit: number;
  execTimeoutMs: number;
  /** Size of the /tmp tmpfs in MiB. */
  tmpSizeMb?: number;
  maxOutputChars?: number;
  keepBackups?: number;
  /** Prefix of container and volume names. */
  namePrefix?: string;
}

const LABEL = 'devops-agents.project';
const isNotFound = (err: unknown): boolean => (err as { statusCode?: number }).statusCode === 404;
const isConflict = (err: unknown): boolean => (err as { statusCode?: number }).statusCode === 409;

/**
 * The docker driver: per project a hardened container (`<prefix>-<projectId>`) running `sleep infinity`
 * as uid 1000 behind an init, with every capability dropped, no-new-privileges, a read-only root, a named
 * volume at `/home/{username}/workspace`, tmpfs at /tmp and the home folder, pids/memory/CPU limits, an
 * optional runtime (gVisor) and no network when networking is off. Nothing of the host is mounted — above
 * all never the Docker socket. Programs run through the exec API. Like the local driver, stop removes the
 * container and its volume (only backups survive), and start restores the newest backup into a new volume.
 */
export function createDockerDriver(options: DockerDriverOptions): SandboxDriver {
  const { docker } = options;
  const root = path.resolve(options.root);
  const prefix = options.namePrefix ?? 'devops-agents-sandbox';
  const maxOutput = options.maxOutputChars ?? 1_000_000;
  const keepBackups = options.keepBackups ?? 3;
  const pending = new Set<number>();
  /** Kills of running execs and shells, per project, for stop and close. */
  const live = new Map<number, Set<() => void>>();

  const containerName = (s: SandboxRef): string => `${prefix}-${s.projectId}`;
  const volumeName = (s: SandboxRef): string => `${prefix}-${s.projectId}-workspace`;
  const backupsDir = (s: SandboxRef): string => path.join(root, String(s.projectId), 'backups');
  const container = (s: SandboxRef): Docker.Container => docker.getContainer(containerName(s));

  const track = (projectId: number, kill: () => void): (() => void) => {
    let set = live.get(projectId);
    if (!set) live.set(projectId, (set = new Set()));
    set.add(kill);
    return () => set.delete(kill);
  };

  const inspect = async (s: SandboxRef): Promise<Docker.ContainerInspectInfo | null> => {
    try {
      return await container(s).inspect();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  };

  const requireRunning = async (s: SandboxRef): Promise<void> => {
    const info = await inspect(s);
    if (!info?.State.Running) throw new SandboxError('not_running', 'The sandbox is not running');
  };

  /** Creates an exec as the sandbox user in the workspace. */
  const createExec = (s: SandboxRef, argv: string[], opts: { env?: Record<string, string>; tty?: boolean }): Promise<Docker.Exec> =>
    container(s).exec({
      Cmd: argv,
      Env: sandboxEnv(s.username, opts.tty ? { TERM: 'xterm-256color', PS1: '\\u@sandbox:\\w\\$ ', ...opts.env } : opts.env),
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      WorkingDir: workspaceOf(s.username),
      AttachStdin: Boolean(opts.tty),
      AttachStdout: true,
      AttachStderr: true,
      Tty: Boolean(opts.tty),
    });

  /** Runs a non-tty exec, handing every demultiplexed chunk to `onText`; answers the exit code. */
  const execStream = async (
    s: SandboxRef,
    argv: string[],
    opts: { env?: Record<string, string>; onText: (text: string, stream: 'stdout' | 'stderr') => void; signal?: AbortSignal },
  ): Promise<number | null> => {
    const exec = await createExec(s, argv, opts);
    const stream = (await exec.start({ hijack: false, stdin: false, Detach: false, Tty: false, abortSignal: opts.signal } as Docker.ExecStartOptions)) as Readable;
    const demux = createDemuxer(opts.onText);
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => demux.push(chunk));
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', (err) => (opts.signal?.aborted ? resolve() : reject(err)));
      opts.signal?.addEventListener('abort', () => (stream.destroy(), resolve()), { once: true });
    });
    demux.end();
    const info = await exec.inspect();
    return info.Running ? null : info.ExitCode;
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

  const ensureImage = async (): Promise<void> => {
    try {
      await docker.getImage(options.image).inspect();
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const progress = await docker.pull(options.image);
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(progress, (e: Error | null) => (e ? reject(e) : resolve())),
      );
    }
  };

  const hardening = (): Docker.HostConfig => ({
    CapDrop: ['ALL'],
    SecurityOpt: ['no-new-privileges:true'],
    ReadonlyRootfs: true,
    NetworkMode: options.network ? 'bridge' : 'none',
    ...(options.runtime ? { Runtime: options.runtime } : {}),
  });

  /**
   * A new volume belongs to root: a one-shot container (root with CAP_CHOWN only, no network, read-only
   * root) hands it to the sandbox user. It runs this fixed command, never anything of the user's.
   */
  const prepareVolume = async (s: SandboxRef): Promise<void> => {
    try {
      await docker.getVolume(volumeName(s)).inspect();
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await docker.createVolume({ Name: volumeName(s), Labels: { [LABEL]: String(s.projectId) } });
    const helper = await docker.createContainer({
      name: `${containerName(s)}-volume`,
      Image: options.image,
      User: '0:0',
      Cmd: ['sh', '-c', `chmod 0700 /workspace && chown ${SANDBOX_UID}:${SANDBOX_UID} /workspace`],
      Labels: { [LABEL]: String(s.projectId) },
      HostConfig: {
        ...hardening(),
        NetworkMode: 'none',
        CapAdd: ['CHOWN'],
        Mounts: [{ Type: 'volume', Source: volumeName(s), Target: '/workspace' }],
      },
    });
    try {
      await helper.start();
      const { StatusCode } = (await helper.wait()) as { StatusCode: number };
      if (StatusCode !== 0) throw new SandboxError('failed', `Preparing the workspace volume failed (exit ${StatusCode})`);
    } finally {
      await helper.remove({ force: true }).catch(() => undefined);
    }
  };

  const createContainer = async (s: SandboxRef): Promise<void> => {
    const mib = 1024 * 1024;
    await docker.createContainer({
      name: containerName(s),
      Image: options.image,
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      Cmd: ['sleep', 'infinity'],
      WorkingDir: workspaceOf(s.username),
      Env: sandboxEnv(s.username),
      Labels: { [LABEL]: String(s.projectId) },
      NetworkDisabled: !options.network,
      HostConfig: {
        ...hardening(),
        Init: true,
        Mounts: [{ Type: 'volume', Source: volumeName(s), Target: workspaceOf(s.username) }],
        Tmpfs: {
          '/tmp': `rw,nosuid,nodev,size=${options.tmpSizeMb ?? 512}m`,
          [homeOf(s.username)]: `rw,nosuid,nodev,size=64m,uid=${SANDBOX_UID},gid=${SANDBOX_UID},mode=0700`,
        },
        ...(options.pidsLimit > 0 ? { PidsLimit: options.pidsLimit } : {}),
        ...(options.memoryMb > 0 ? { Memory: options.memoryMb * mib, MemorySwap: options.memoryMb * mib } : {}),
        ...(options.cpus > 0 ? { NanoCpus: Math.round(options.cpus * 1e9) } : {}),
        RestartPolicy: { Name: 'no' },
      },
    });
  };

  const backups = (s: SandboxRef): string[] => {
    try {
      return fs
        .readdirSync(backupsDir(s))
        .filter((f) => /^backup-\d+\.tar\.gz$/.test(f))
        .sort((a, b) => Number(b.slice(7, -7)) - Number(a.slice(7, -7)));
    } catch {
      return [];
    }
  };

  /** The newest backup into the (empty) workspace volume; the engine hands the files to the container's user. */
  const restoreLatest = async (s: SandboxRef): Promise<boolean> => {
    const [latest] = backups(s);
    if (!latest) return false;
    try {
      await container(s).putArchive(fs.createReadStream(path.join(backupsDir(s), latest)), {
        path: workspaceOf(s.username),
        noOverwriteDirNonDir: true,
        copyUIDGID: true,
      });
    } catch (err) {
      throw new SandboxError('failed', `Restoring the backup failed: ${(err as Error).message}`);
    }
    return true;
  };

  const bringUp = async (s: SandboxRef): Promise<void> => {
    fs.mkdirSync(backupsDir(s), { recursive: true, mode: 0o700 });
    const info = await inspect(s);
    if (info?.State.Running) return;
    pending.add(s.projectId);
    try {
      if (!info) {
        await ensureImage();
        await prepareVolume(s);
        await createContainer(s);
      }
      try {
        await container(s).start();
      } catch (err) {
        // 304: already started by a concurrent call.
        if ((err as { statusCode?: number }).statusCode !== 304) throw err;
      }
      if (await workspaceIsEmpty(run, s)) {
        if (!(await restoreLatest(s))) await createFreshWorkspace(run, s);
      }
    } catch (err) {
      throw err instanceof SandboxError ? err : new SandboxError('failed', `Starting the sandbox failed: ${(err as Error).message}`);
    } finally {
      pending.delete(s.projectId);
    }
  };

  /** The workspace (or a folder of it) as a tar whose entries are relative to that folder. */
  const archiveOf = (s: SandboxRef, folder: string): Promise<Readable> =>
    container(s).getArchive({ path: `${folder}/.` }) as Promise<Readable>;

  const endProcesses = (projectId: number): void => {
    for (const kill of live.get(projectId) ?? []) kill();
    live.delete(projectId);
  };

  return {
    kind: 'docker',

    async status(s): Promise<ContainerStatusName> {
      if (pending.has(s.projectId)) return 'Pending';
      const info = await inspect(s);
      if (!info) return 'NotRunning';
      switch (info.State.Status) {
        case 'running':
          return 'Running';
        case 'created':
        case 'restarting':
          return 'Pending';
        case 'paused':
          return 'Waiting';
        case 'exited':
          return 'Stopped';
        default:
          return 'Terminated';
      }
    },

    initialise: bringUp,
    start: bringUp,

    async stop(s): Promise<void> {
      pending.add(s.projectId);
      try {
        endProcesses(s.projectId);
        try {
          await container(s).remove({ force: true, v: false });
        } catch (err) {
          if (!isNotFound(err) && !isConflict(err)) throw err;
        }
        try {
          await docker.getVolume(volumeName(s)).remove();
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      } catch (err) {
        throw new SandboxError('failed', `Stopping the sandbox failed: ${(err as Error).message}`);
      } finally {
        pending.delete(s.projectId);
      }
    },

    async backup(s): Promise<BackupResult> {
      await requireRunning(s);
      const at = new Date();
      fs.mkdirSync(backupsDir(s), { recursive: true, mode: 0o700 });
      const file = path.join(backupsDir(s), `backup-${at.getTime()}.tar.gz`);
      const partial = `${file}.partial`;
      try {
        await pipeline(await archiveOf(s, workspaceOf(s.username)), createGzip(), fs.createWriteStream(partial, { mode: 0o600 }));
        fs.renameSync(partial, file);
      } catch (err) {
        fs.rmSync(partial, { force: true });
        throw new SandboxError('failed', (err as Error).message);
      }
      for (const old of backups(s).slice(keepBackups)) fs.rmSync(path.join(backupsDir(s), old), { force: true });
      return { lastSyncTime: at };
    },

    async lastBackupTime(s): Promise<Date | null> {
      const [latest] = backups(s);
      return latest ? new Date(Number(latest.slice(7, -7))) : null;
    },

    async exec(s, command, opts: ExecOptions = {}): Promise<ExecResult> {
      await requireRunning(s);
      const pidFile = `/tmp/.exec-${randomUUID()}`;
      const abort = new AbortController();
      const kill = (): void => {
        void killInside(s, pidFile).finally(() => abort.abort());
      };
      const tracker = execTracker(opts, { timeoutMs: options.execTimeoutMs, maxOutput }, kill);
      const untrack = track(s.projectId, kill);
      try {
        const code = await execStream(s, killableArgv(command, pidFile), { env: opts.env, onText: tracker.chunk, signal: abort.signal });
        return tracker.finish(code);
      } catch (err) {
        if (tracker.stopped) return tracker.finish(null);
        tracker.finish(null);
        throw err instanceof SandboxError ? err : new SandboxError('failed', (err as Error).message);
      } finally {
        untrack();
      }
    },

    shell(s, opts: ShellOptions): SandboxPty {
      return dockerShell(s, opts);
    },

    async zipWorkspace(s): Promise<Readable> {
      await requireRunning(s);
      return tarToZip(await archiveOf(s, workspaceOf(s.username)), '');
    },

    async zipFolder(s, relativePath): Promise<Readable> {
      await requireRunning(s);
      const folder = await resolveFolder(run, s, relativePath);
      return tarToZip(await archiveOf(s, folder), '');
    },

    async commitStep(s, stepNumber, command): Promise<string> {
      await requireRunning(s);
      return commitStep(run, s, stepNumber, command);
    },

    async history(s, limit = 200) {
      await requireRunning(s);
      return history(run, s, limit);
    },

    async close(): Promise<void> {
      for (const projectId of [...live.keys()]) endProcesses(projectId);
    },
  };

  /**
   * A login shell over an exec with a tty. The exec is created asynchronously: input typed before it is
   * attached is queued. Killing closes the attached socket (the shell gets SIGHUP) and kills its session.
   */
  function dockerShell(s: SandboxRef, opts: ShellOptions): SandboxPty {
    const dataListeners = new Set<(data: string) => void>();
    const exitListeners = new Set<(event: { exitCode: number; signal?: number }) => void>();
    const pidFile = `/tmp/.shell-${randomUUID()}`;
    let socket: Duplex | null = null;
    let exec: Docker.Exec | null = null;
    let queued: string[] = [];
    let size = { cols: opts.cols, rows: opts.rows };
    let paused = false;
    let exited = false;
    const decoder = new StringDecoder('utf8');

    let killed = false;
    const exit = (exitCode: number): void => {
      if (exited) return;
      exited = true;
      untrack();
      // Killed by us: reported like node-pty's SIGKILL, whatever the engine has noted by then.
      exitListeners.forEach((l) => l(killed ? { exitCode: 0, signal: 9 } : { exitCode }));
    };
    const kill = (): void => {
      killed = true;
      socket?.destroy();
      void killInside(s, pidFile);
    };
    const untrack = track(s.projectId, kill);

    void (async () => {
      await requireRunning(s);
      exec = await createExec(
        s,
        ['bash', '-c', 'echo $$ > "$1"; exec bash -l', 'shell', pidFile],
        { env: opts.env, tty: true },
      );
      socket = (await exec.start({ hijack: true, stdin: true, Detach: false, Tty: true })) as Duplex;
      socket.on('data', (chunk: Buffer) => {
        const data = decoder.write(chunk);
        if (data) dataListeners.forEach((l) => l(data));
      });
      if (paused) socket.pause();
      await exec.resize({ h: size.rows, w: size.cols }).catch(() => undefined);
      for (const data of queued) socket.write(data);
      queued = [];
      await new Promise<void>((resolve) => {
        socket!.once('end', resolve);
        socket!.once('close', resolve);
        socket!.once('error', () => resolve());
      });
      const info = await exec.inspect().catch(() => null);
      exit(info?.ExitCode ?? 1);
    })().catch(() => exit(1));

    return {
      pid: 0,
      write(data) {
        if (socket) socket.write(data);
        else queued.push(data);
      },
      resize(cols, rows) {
        size = { cols, rows };
        void exec?.resize({ h: rows, w: cols }).catch(() => undefined);
      },
      pause() {
        paused = true;
        socket?.pause();
      },
      resume() {
        paused = false;
        socket?.resume();
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
  }
}
