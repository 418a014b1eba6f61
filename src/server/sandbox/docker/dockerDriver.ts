import fs from 'node:fs';
import path from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGzip } from 'node:zlib';
import type Docker from 'dockerode';
import type { ContainerStatusName } from '../../../shared/constants/sandbox';
import { SandboxError, type BackupResult, type SandboxDriver, type SandboxRef } from '../driver';
import { createBackupStore } from '../backups';
import { createContainerProcesses, type ExecStream, type TtyConnect } from '../remote/processes';
import {
  createFreshWorkspace,
  homeOf,
  linkSshKeys,
  resolveFolder,
  SANDBOX_UID,
  sandboxEnv,
  workspaceIsEmpty,
  workspaceOf,
} from '../remote/workspace';
import { tarToZip } from '../tarToZip';
import { secretFilter } from '../workspaceLayout';
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
  const pending = new Set<number>();

  const containerName = (s: SandboxRef): string => `${prefix}-${s.projectId}`;
  const volumeName = (s: SandboxRef): string => `${prefix}-${s.projectId}-workspace`;
  const backupsDir = (s: SandboxRef): string => path.join(root, String(s.projectId), 'backups');
  const backups = createBackupStore(backupsDir, options.keepBackups ?? 3);
  const container = (s: SandboxRef): Docker.Container => docker.getContainer(containerName(s));

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
      Env: sandboxEnv(s.username, opts.env),
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      WorkingDir: workspaceOf(s.username),
      AttachStdin: Boolean(opts.tty),
      AttachStdout: true,
      AttachStderr: true,
      Tty: Boolean(opts.tty),
    });

  /** Runs a non-tty exec, handing every demultiplexed chunk to `onText`; answers the exit code. */
  const execStream: ExecStream = async (s, argv, opts) => {
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

  /** A tty exec over the hijacked connection of exec start; the size is set through exec resize. */
  const connectTty: TtyConnect = async (s, argv, opts) => {
    const exec = await createExec(s, argv, { env: opts.env, tty: true });
    const socket = (await exec.start({ hijack: true, stdin: true, Detach: false, Tty: true })) as Duplex;
    const decoder = new StringDecoder('utf8');
    socket.on('data', (chunk: Buffer) => {
      const data = decoder.write(chunk);
      if (data) opts.onData(data);
    });
    const ended = new Promise<void>((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
      socket.once('error', () => resolve());
    });
    return {
      write: (data) => void socket.write(data),
      resize: (cols, rows) => void exec.resize({ h: rows, w: cols }).catch(() => undefined),
      pause: () => void socket.pause(),
      resume: () => void socket.resume(),
      close: () => socket.destroy(),
      exited: ended.then(() => exec.inspect().then((info) => info.ExitCode, () => null)),
    };
  };

  const processes = createContainerProcesses({
    execStream,
    connectTty,
    requireRunning,
    execTimeoutMs: options.execTimeoutMs,
    maxOutputChars: options.maxOutputChars ?? 1_000_000,
  });
  const { run } = processes;

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

  /** The newest backup into the (empty) workspace volume; the engine hands the files to the container's user. */
  const restoreLatest = async (s: SandboxRef): Promise<boolean> => {
    const latest = backups.latest(s);
    if (!latest) return false;
    try {
      await container(s).putArchive(fs.createReadStream(latest), {
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
      await linkSshKeys(run, s);
    } catch (err) {
      throw err instanceof SandboxError ? err : new SandboxError('failed', `Starting the sandbox failed: ${(err as Error).message}`);
    } finally {
      pending.delete(s.projectId);
    }
  };

  /** The workspace (or a folder of it) as a tar whose entries are relative to that folder. */
  const archiveOf = (s: SandboxRef, folder: string): Promise<Readable> =>
    container(s).getArchive({ path: `${folder}/.` }) as Promise<Readable>;

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
        processes.end(s.projectId);
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
      return backups.save(s, async (partial) =>
        pipeline(await archiveOf(s, workspaceOf(s.username)), createGzip(), fs.createWriteStream(partial, { mode: 0o600 })),
      );
    },

    lastBackupTime: (s) => backups.lastTime(s),

    ...processes.members,

    async zipWorkspace(s, options): Promise<Readable> {
      await requireRunning(s);
      return tarToZip(await archiveOf(s, workspaceOf(s.username)), '', secretFilter('', options?.includeSecrets));
    },

    async zipFolder(s, relativePath, options): Promise<Readable> {
      await requireRunning(s);
      const folder = await resolveFolder(run, s, relativePath);
      return tarToZip(await archiveOf(s, folder), '', secretFilter(relativePath, options?.includeSecrets));
    },
  };
}

