import fs from 'node:fs';
import path from 'node:path';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGzip } from 'node:zlib';
import type Docker from 'dockerode';
import type { ContainerStatusName } from '../../../shared/constants/sandbox';
import { contentCheckOf, SandboxError, type SandboxDriver, type SandboxRef } from '../driver';
import { createBackupStore } from '../backups';
import { withSandboxRules, type SandboxTransport } from '../rules';
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
import { projectFolderFilter, secretFilter } from '../workspaceLayout';
import { createDemuxer } from './demux';
import { egressScript, LIST_ADDRESSES, parseAddresses } from './egress';
import { runHelper } from './helpers';
import { dockerNames } from './names';
import { boundedDisks } from '../diskImage';

export interface DockerDriverOptions {
  /** The engine, e.g. `new Docker({ socketPath: '/var/run/docker.sock' })`. */
  docker: Docker;
  /** The engine's address as configured (SANDBOX_DOCKER_HOST), named when it cannot be reached. */
  engine?: string;
  /** This server's id (kept in its database): in every name and label, so servers sharing an engine stay apart. */
  instanceId: string;
  /** DATA_DIR/sandboxes: `<projectId>/backups/` holds the workspace archives. */
  root: string;
  /** Image of every sandbox: the toolbox (`npm run sandbox:image`); needs bash, git, tar, coreutils, util-linux and iptables. */
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
  /** SANDBOX_DENY_CIDRS: rejected inside the sandbox with the engine host's addresses and link-local ranges. */
  denyCidrs?: string[];
  /** Size of the /tmp tmpfs in MiB. */
  tmpSizeMb?: number;
  maxOutputChars?: number;
  keepBackups?: number;
  /** First part of container, volume and network names. */
  namePrefix?: string;
  /**
   * SANDBOX_DISK_MB: the workspace volume is a bind of a bounded filesystem (../diskImage.ts) the server
   * mounts under `root`, when the server runs as root beside the engine (a unix socket); 0 for none.
   */
  diskMb?: number;
  /** Where the driver says that the disk quota cannot be enforced. */
  log?: { warn(message: string): void };
}

const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number }).statusCode;
const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
const isConflict = (err: unknown): boolean => statusOf(err) === 409;
/**
 * A volume mount the engine does not fill with the mount point's contents and owner. (The typings mark
 * every volume option as required; the engine needs none but NoCopy.)
 */
const NO_COPY = { NoCopy: true } as NonNullable<Docker.MountSettings['VolumeOptions']>;
/** Socket errors: the engine is down or its address is wrong, not a failure of the sandbox. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOENT', 'EACCES', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** The docker driver: the docker transport under the sandbox rules (../rules.ts). */
export function createDockerDriver(options: DockerDriverOptions): SandboxDriver {
  const root = path.resolve(options.root);
  const backups = createBackupStore((s) => path.join(root, String(s.projectId), 'backups'), options.keepBackups ?? 3);
  return withSandboxRules(createDockerTransport(options), backups);
}

/**
 * The docker transport: per project a hardened container (`<prefix>-<instance>-<projectId>`) running
 * `sleep infinity` as uid 1000 behind an init, with every capability dropped, no-new-privileges, a
 * read-only root, a named volume at `/home/{username}/workspace`, tmpfs at /tmp and the home folder,
 * pids/memory/CPU limits, an optional runtime (gVisor) and no network when networking is off. With
 * networking on, each project has a bridge network of its own, and firewall rules in the sandbox's network
 * namespace reject the engine host's own addresses and link-local ranges. Nothing of the host is mounted —
 * above all never the Docker socket. Programs run through the exec API. Like the local driver, stop removes
 * the container and its volume (only backups survive), and start restores the newest backup into a new volume.
 */
export function createDockerTransport(options: DockerDriverOptions): SandboxTransport {
  const { docker } = options;
  const root = path.resolve(options.root);
  const names = dockerNames(options.namePrefix ?? 'devops-agents', options.instanceId);

  const backupsDir = (s: SandboxRef): string => path.join(root, String(s.projectId), 'backups');
  const mountpointOf = (s: SandboxRef): string => path.join(root, String(s.projectId), 'workspace');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const engineHere = !options.engine || options.engine.startsWith('unix://');
  const disks = (options.diskMb ?? 0) > 0 && asRoot && engineHere ? boundedDisks(options.diskMb!) : null;
  if ((options.diskMb ?? 0) > 0 && !disks) {
    (options.log ?? { warn: (message: string) => process.emitWarning(message, 'SandboxDisk') }).warn(
      `SANDBOX_DISK_MB=${options.diskMb} is not enforced: the docker driver bounds a workspace with a filesystem it mounts itself, which needs the server to run as root on the engine's host (a unix:// SANDBOX_DOCKER_HOST).`,
    );
  }
  /**
   * The bounded filesystem of the workspace, mounted again (after the host restarted) or, for a new
   * container (`create`), made; answers whether it is new. A container made before SANDBOX_DISK_MB was
   * set keeps its engine volume until its next stop.
   */
  const prepareDisk = (s: SandboxRef, create: boolean): boolean => {
    if (!disks) return false;
    if (disks.exists(mountpointOf(s))) {
      disks.attach(mountpointOf(s));
      return false;
    }
    if (!create) return false;
    fs.mkdirSync(path.dirname(mountpointOf(s)), { recursive: true, mode: 0o700 });
    disks.create(mountpointOf(s), SANDBOX_UID);
    return true;
  };
  const container = (s: SandboxRef): Docker.Container => docker.getContainer(names.container(s));

  /** An engine that cannot be reached becomes `unavailable` (503), naming the engine. */
  const engineError = (err: unknown, doing: string): SandboxError => {
    if (err instanceof SandboxError) return err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code && UNREACHABLE.has(code)) {
      return new SandboxError('unavailable', `The Docker engine${options.engine ? ` at ${options.engine}` : ''} cannot be reached (${code})`);
    }
    return new SandboxError('failed', `${doing} failed: ${(err as Error).message}`);
  };

  const inspect = async (s: SandboxRef): Promise<Docker.ContainerInspectInfo | null> => {
    try {
      return await container(s).inspect();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw engineError(err, 'Reading the sandbox');
    }
  };

  const requireRunning = async (s: SandboxRef): Promise<void> => {
    const info = await inspect(s);
    if (!info?.State.Running) throw new SandboxError('not_running', 'The sandbox is not running');
  };

  /** Creates an exec as the sandbox user in the workspace. */
  const createExec = (s: SandboxRef, argv: string[], opts: { env?: Record<string, string>; tty?: boolean; stdin?: boolean }): Promise<Docker.Exec> =>
    container(s).exec({
      Cmd: argv,
      Env: sandboxEnv(s.username, opts.env),
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      WorkingDir: workspaceOf(s.username),
      AttachStdin: Boolean(opts.tty || opts.stdin),
      AttachStdout: true,
      AttachStderr: true,
      Tty: Boolean(opts.tty),
    });

  /**
   * Runs a non-tty exec, handing every demultiplexed chunk to `onText`; answers the exit code. With
   * `stdin` bytes or a `killSignal`, stdin is attached over the hijacked connection: aborting writes a line to it and then
   * drops the connection, which the command's watcher (`stdinKillableArgv`) reads as its kill.
   */
  const execStream: ExecStream = async (s, argv, opts) => {
    const stdin = Boolean(opts.killSignal || opts.stdin);
    const exec = await createExec(s, argv, { env: opts.env, stdin });
    const stream = (await exec.start({ hijack: stdin, stdin, Detach: false, Tty: false, abortSignal: opts.signal } as Docker.ExecStartOptions)) as Duplex;
    if (opts.stdin?.length) stream.write(opts.stdin);
    const demux = createDemuxer(opts.onText);
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => demux.push(chunk));
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', (err) => (opts.signal?.aborted || opts.killSignal?.aborted ? resolve() : reject(err)));
      opts.signal?.addEventListener('abort', () => (stream.destroy(), resolve()), { once: true });
      opts.killSignal?.addEventListener('abort', () => stream.write('kill\n', () => (stream.destroy(), resolve())), { once: true });
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
    killThroughStdin: true,
  });
  const { run } = processes;

  const ensureImage = async (): Promise<void> => {
    try {
      await docker.getImage(options.image).inspect();
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      const progress = await docker.pull(options.image);
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(progress, (e: Error | null) => (e ? reject(e) : resolve())),
      );
    } catch (err) {
      throw new SandboxError(
        'failed',
        `The sandbox image ${options.image} is not on the engine and could not be pulled (${(err as Error).message}); build it with npm run sandbox:image`,
      );
    }
  };

  /** Removes an object the engine may not have (404) or may be removing already (409). */
  const removeQuietly = async (remove: () => Promise<unknown>): Promise<void> => {
    try {
      await remove();
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  };

  /**
   * A new volume belongs to root: a one-shot helper (root with CAP_CHOWN and CAP_FOWNER only, no network)
   * hands it to the sandbox user. Answers whether the volume is new. `NoCopy` keeps the engine from
   * copying a mount point's root owner onto it.
   */
  const prepareVolume = async (s: SandboxRef): Promise<boolean> => {
    try {
      await docker.getVolume(names.volume(s)).inspect();
      return false;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await docker.createVolume({
      Name: names.volume(s),
      Labels: names.labels(s),
      // The bounded filesystem, when there is one; else the engine's own folder.
      ...(disks ? { Driver: 'local', DriverOpts: { type: 'none', o: 'bind', device: mountpointOf(s) } } : {}),
    });
    await runHelper(docker, {
      name: names.helper(s, 'volume'),
      image: options.image,
      user: '0:0',
      cmd: ['sh', '-c', `chown ${SANDBOX_UID}:${SANDBOX_UID} /workspace && chmod 0700 /workspace`],
      labels: names.labels(s),
      capAdd: ['CHOWN', 'FOWNER'],
      networkMode: 'none',
      mounts: [{ Type: 'volume', Source: names.volume(s), Target: '/workspace', VolumeOptions: NO_COPY }],
      job: 'Preparing the workspace volume',
    });
    return true;
  };

  /** The project's own bridge network (networking on): no other project's container is on it. */
  const ensureNetwork = async (s: SandboxRef): Promise<void> => {
    try {
      await docker.getNetwork(names.network(s)).inspect();
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await docker.createNetwork({ Name: names.network(s), Driver: 'bridge', CheckDuplicate: true, Labels: names.labels(s) }).catch((e: unknown) => {
        if (!isConflict(e)) throw e;
      });
    }
  };

  /**
   * Rejects, inside the running sandbox's network namespace, the engine host's own addresses (listed by a
   * helper on the host's network, so every bridge gateway is among them) and link-local ranges. Asked at
   * every start: a container's namespace and its rules are new with each start.
   */
  const restrictEgress = async (s: SandboxRef): Promise<void> => {
    const listed = await runHelper(docker, {
      name: names.helper(s, 'addresses'),
      image: options.image,
      user: `${SANDBOX_UID}:${SANDBOX_UID}`,
      cmd: LIST_ADDRESSES,
      labels: names.labels(s),
      networkMode: 'host',
      job: "Listing the engine host's addresses",
    });
    await runHelper(docker, {
      name: names.helper(s, 'egress'),
      image: options.image,
      user: '0:0',
      cmd: ['sh', '-c', egressScript(parseAddresses(listed), options.denyCidrs)],
      labels: names.labels(s),
      capAdd: ['NET_ADMIN', 'NET_RAW'],
      networkMode: `container:${names.container(s)}`,
      job: 'Setting the sandbox firewall',
    });
  };

  const createContainer = async (s: SandboxRef): Promise<void> => {
    const mib = 1024 * 1024;
    await docker.createContainer({
      name: names.container(s),
      Image: options.image,
      Hostname: 'sandbox',
      User: `${SANDBOX_UID}:${SANDBOX_UID}`,
      Cmd: ['sleep', 'infinity'],
      // Not the workspace: the engine would create that mount point as root at create time.
      WorkingDir: '/tmp',
      Env: sandboxEnv(s.username),
      Labels: names.labels(s),
      NetworkDisabled: !options.network,
      HostConfig: {
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges:true'],
        ReadonlyRootfs: true,
        NetworkMode: options.network ? names.network(s) : 'none',
        ...(options.runtime ? { Runtime: options.runtime } : {}),
        Init: true,
        Mounts: [{ Type: 'volume', Source: names.volume(s), Target: workspaceOf(s.username), VolumeOptions: NO_COPY }],
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


  /** Removes the project's container, volume and network (each may be missing). */
  const removeAll = async (s: SandboxRef, { volume }: { volume: boolean }): Promise<void> => {
    await removeQuietly(() => container(s).remove({ force: true, v: false }));
    if (volume) {
      await removeQuietly(() => docker.getVolume(names.volume(s)).remove());
      disks?.discard(mountpointOf(s));
    }
    if (options.network) await removeQuietly(() => docker.getNetwork(names.network(s)).remove());
  };

  /**
   * Creates (or starts) the container. When that fails, the container is removed — and the volume too
   * when this call made it — so that a retry does the work again.
   */
  const bringUp = async (s: SandboxRef): Promise<boolean> => {
    fs.mkdirSync(backupsDir(s), { recursive: true, mode: 0o700 });
    let newVolume = false;
    try {
      const info = await inspect(s);
      if (info?.State.Running) return true;
      newVolume = prepareDisk(s, !info);
      if (!info) {
        await ensureImage();
        newVolume = (await prepareVolume(s)) || newVolume;
        if (options.network) await ensureNetwork(s);
        await createContainer(s);
      }
      try {
        await container(s).start();
      } catch (err) {
        // 304: already started by a concurrent call.
        if (statusOf(err) !== 304) throw err;
      }
      if (options.network) await restrictEgress(s);
      return false;
    } catch (err) {
      await removeAll(s, { volume: newVolume }).catch(() => undefined);
      throw engineError(err, 'Starting the sandbox');
    }
  };

  /**
   * Ends every process in the container, not only those the driver started (a fork bomb's children
   * among them): the container is killed and started again with its volume, its firewall set again (the
   * network namespace is new) and ~/.ssh linked again (the home tmpfs is new).
   */
  const quiesce = async (s: SandboxRef): Promise<void> => {
    processes.end(s.projectId);
    try {
      await container(s).kill({ signal: 'SIGKILL' }).catch((err: unknown) => {
        if (!isConflict(err)) throw err;
      });
      await container(s).wait({ condition: 'not-running' }).catch(() => undefined);
      await container(s).start().catch((err: unknown) => {
        if (statusOf(err) !== 304) throw err;
      });
      if (options.network) await restrictEgress(s);
      await linkSshKeys(run, s);
    } catch (err) {
      throw engineError(err, 'Ending the sandbox processes');
    }
  };

  /** The workspace (or a folder of it) as a tar whose entries are relative to that folder. */
  const archiveOf = (s: SandboxRef, folder: string): Promise<Readable> =>
    container(s).getArchive({ path: `${folder}/.` }) as Promise<Readable>;

  return {
    kind: 'docker',
    statusChangesOutside: true,

    async status(s): Promise<ContainerStatusName> {
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

    up: bringUp,
    workspaceIsEmpty: (s) => workspaceIsEmpty(run, s),
    createWorkspace: (s) => createFreshWorkspace(run, s),
    ready: (s) => linkSshKeys(run, s),

    async writeArchive(s, file): Promise<void> {
      try {
        await pipeline(await archiveOf(s, workspaceOf(s.username)), createGzip(), fs.createWriteStream(file, { mode: 0o600 }));
      } catch (err) {
        throw engineError(err, 'Archiving the workspace');
      }
    },

    /**
     * Into the (empty) workspace volume. Its files already belong to uid 1000, and the engine keeps a
     * tar's owners; `copyUIDGID` would make the engine look the user up on its own host.
     */
    async restoreArchive(s, file): Promise<void> {
      try {
        await container(s).putArchive(fs.createReadStream(file), { path: workspaceOf(s.username), noOverwriteDirNonDir: true });
      } catch (err) {
        throw engineError(err, 'Unpacking the archive');
      }
    },

    quiesce: async (s) => quiesce(s),

    async down(s): Promise<void> {
      try {
        processes.end(s.projectId);
        await removeAll(s, { volume: true });
      } catch (err) {
        throw engineError(err, 'Stopping the sandbox');
      }
    },

    abandon: (s) => removeAll(s, { volume: true }),

    ...processes.members,

    async zipWorkspace(s, options): Promise<Readable> {
      await requireRunning(s);
      return tarToZip(await archiveOf(s, workspaceOf(s.username)), '', secretFilter('', options?.includeSecrets), contentCheckOf(options));
    },

    async zipFolder(s, relativePath, options): Promise<Readable> {
      await requireRunning(s);
      const folder = await resolveFolder(run, s, relativePath);
      return tarToZip(await archiveOf(s, folder), '', projectFolderFilter(relativePath, options?.includeSecrets), contentCheckOf(options));
    },
  };
}
