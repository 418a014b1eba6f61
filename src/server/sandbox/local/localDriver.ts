import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable, Writable } from 'node:stream';
import * as pty from 'node-pty';
import type { SandboxCommit } from '../../../shared/api/sandbox';
import type { ContainerStatusName } from '../../../shared/constants/sandbox';
import {
  contentCheckOf,
  SandboxError,
  type ExecOptions,
  type ExecResult,
  type SandboxDriver,
  type SandboxPty,
  type SandboxRef,
  type ShellOptions,
} from '../driver';
import { execTracker } from '../execTracker';
import { commandOnStdin } from '../commandInput';
import { createBackupStore } from '../backups';
import { withSandboxRules, type SandboxTransport } from '../rules';
import { tarToZip, type ContentCheck, type EntryFilter } from '../tarToZip';
import { baseEnv, bwrapArgv, SANDBOX_UID, workspaceOf, type LocalSandboxLimits } from './bwrap';
import { probeMemoryCgroups, type CgroupProbe } from './memoryCgroup';
import { attachSlirp, fifoWrapper, SLIRP_RESOLV_CONF, slirpAvailable, type NetworkLog, type NetworkMode } from './userNetwork';
import { commitStep, createFreshWorkspace, GIT_IDENTITY } from '../remote/workspace';
import { boundedDisks, isMountpoint } from '../diskImage';
import { mountsUnder } from '../mountInfo';
import { claimUidSlot, DEFAULT_UID_REGISTRY, UID_SLOT_SPAN } from './uidSlots';
import { HISTORY_FORMAT, parseHistory, projectFolderFilter, secretFilter } from '../workspaceLayout';

export interface LocalDriverOptions {
  /** DATA_DIR/sandboxes: one folder per project with `workspace/`, `backups/` and `etc/`. */
  root: string;
  limits: LocalSandboxLimits;
  /**
   * First host uid of the per-project users when the server runs as root: uid = base + this instance's
   * slot (./uidSlots.ts) * UID_SLOT_SPAN + projectId.
   */
  uidBase: number;
  /** Where the instances on this host record their uid slots (DEFAULT_UID_REGISTRY). */
  uidRegistry?: string;
  /** SANDBOX_DISK_MB: each workspace a filesystem of this size (root only); 0 for none. */
  diskMb?: number;
  /** Default exec timeout in ms. */
  execTimeoutMs: number;
  /** Largest output an ExecResult keeps (the end is kept). */
  maxOutputChars?: number;
  /** Backups kept per project (the newest is restored). */
  keepBackups?: number;
  /** SANDBOX_DENY_CIDRS: rejected inside the sandbox with the host's own addresses and link-local ranges. */
  denyCidrs?: string[];
  /** Where the driver says that the sandbox network fell back to the host's or failed to start. */
  log?: NetworkLog;
}


interface Running {
  children: Set<ChildProcess>;
  shells: Set<pty.IPty>;
}

/** The local driver: the local transport under the sandbox rules (./../rules.ts). */
export function createLocalDriver(options: LocalDriverOptions): SandboxDriver {
  const root = path.resolve(options.root);
  const backups = createBackupStore((s) => path.join(root, String(s.projectId), 'backups'), options.keepBackups ?? 3);
  return withSandboxRules(createLocalTransport(options), backups);
}

/**
 * The local transport: bubblewrap around a per-project workspace under DATA_DIR/sandboxes/<projectId>.
 * Running as root, each project's programs run as a host uid of their own (uidBase + projectId), so
 * process limits are per project and even an escape from the mount namespace finds nothing it owns
 * but its own workspace. A sandbox is Running while its workspace exists; `down` removes the workspace.
 */
export function createLocalTransport(options: LocalDriverOptions): SandboxTransport {
  const root = path.resolve(options.root);
  const maxOutput = options.maxOutputChars ?? 1_000_000;
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const running = new Map<number, Running>();
  /** slirp4netns instances being ended: a shutdown waits for them, so none outlives the server. */
  const endingNetworks = new Set<Promise<void>>();
  const endNetwork = (stop: (() => Promise<void>) | null): void => {
    if (!stop) return;
    const ended = stop();
    endingNetworks.add(ended);
    void ended.finally(() => endingNetworks.delete(ended));
  };
  /** Set by close: nothing new starts while the server shuts down. */
  let closing = false;
  const refuseWhileClosing = (): void => {
    if (closing) throw new SandboxError('not_running', 'The server is shutting down');
  };

  const dirOf = (s: SandboxRef): string => path.join(root, String(s.projectId));
  const workspaceDir = (s: SandboxRef): string => path.join(dirOf(s), 'workspace');
  const backupsDir = (s: SandboxRef): string => path.join(dirOf(s), 'backups');
  const etcDir = (s: SandboxRef): string => path.join(dirOf(s), 'etc');
  /** This instance's first uid, claimed when a sandbox first needs one. */
  let firstUid: number | null = null;
  const hostUid = (s: SandboxRef): number | null => {
    if (!asRoot) return null;
    if (s.projectId >= UID_SLOT_SPAN) throw new SandboxError('failed', `Project ids from ${UID_SLOT_SPAN} on have no sandbox uid`);
    firstUid ??= options.uidBase + claimUidSlot(options.uidRegistry ?? DEFAULT_UID_REGISTRY, root, options.uidBase) * UID_SLOT_SPAN;
    return firstUid + s.projectId;
  };
  /** The bounded workspaces (SANDBOX_DISK_MB), when the server may mount them. */
  const disks = asRoot && (options.diskMb ?? 0) > 0 ? boundedDisks(options.diskMb!) : null;
  if (!asRoot && (options.diskMb ?? 0) > 0) {
    (options.log ?? { warn: (message: string) => process.emitWarning(message, 'SandboxDisk') }).warn(
      `SANDBOX_DISK_MB=${options.diskMb} is enforced only when the server runs as root (each workspace a loop-mounted filesystem of that size); here it limits each file a sandbox writes (RLIMIT_FSIZE).`,
    );
  }
  const attach = (s: SandboxRef): void => {
    if (!disks || !disks.exists(workspaceDir(s))) return;
    disks.attach(workspaceDir(s));
  };
  /**
   * Unmounts every workspace image under the root, as the mount table has them: this server's, and those a
   * server killed before it (SIGKILL, no close) left mounted, which this one may never have used. Each is
   * mounted again on its next use; one still busy is detached lazily, so none stays in the mount table to
   * keep the folder from being removed.
   */
  const detachWorkspaces = (): void => {
    if (!disks || !fs.existsSync(root)) return;
    // The mount table names folders by their real path (a DATA_DIR reached through a link reads otherwise).
    const realRoot = fs.realpathSync(root);
    for (const mountpoint of mountsUnder(realRoot)) {
      if (path.basename(mountpoint) === 'workspace' && path.dirname(path.dirname(mountpoint)) === realRoot) disks.detach(mountpoint);
    }
  };
  const log: NetworkLog = options.log ?? { warn: (message) => process.emitWarning(message, 'SandboxNetwork') };
  const resolvConf = path.join(root, 'resolv.conf');
  /**
   * What the host allows, found when a sandbox first needs it rather than at the server's start (the
   * probes run programs: about a tenth of a cold start): the network of commands and shells (the
   * sandbox's own when slirp4netns is installed) and a memory cgroup.
   */
  let host: { networkMode: NetworkMode; memory: CgroupProbe } | null = null;
  const hostSupport = (): { networkMode: NetworkMode; memory: CgroupProbe } => {
    if (host) return host;
    const networkMode: NetworkMode = !options.limits.network ? 'none' : slirpAvailable() ? 'slirp' : 'host';
    if (networkMode === 'host') {
      log.warn('slirp4netns is not installed: sandboxes share the host network (and reach its loopback services). Install it (apt-get install slirp4netns) to give each sandbox its own.');
    }
    const memory = probeMemoryCgroups(options.limits.memoryMb);
    if (!memory.cgroups && options.limits.memoryMb > 0) {
      log.warn(
        `No memory cgroup for sandboxes (${memory.reason}): SANDBOX_MEMORY_MB=${options.limits.memoryMb} limits each process's address space (RLIMIT_AS), so several processes of one sandbox together can use more. Run the server where it may create cgroups (root, or a systemd unit with Delegate=yes) to limit each sandbox as a whole.`,
      );
    }
    if (networkMode === 'slirp') {
      fs.mkdirSync(root, { recursive: true, mode: 0o700 });
      fs.writeFileSync(resolvConf, SLIRP_RESOLV_CONF, { mode: 0o600 });
    }
    return (host = { networkMode, memory });
  };

  const processesOf = (projectId: number): Running => {
    let entry = running.get(projectId);
    if (!entry) {
      entry = { children: new Set(), shells: new Set() };
      running.set(projectId, entry);
    }
    return entry;
  };

  /** The sandbox's argv; `network` for user commands and shells (the driver's own git and tar have none). */
  const argv = (s: SandboxRef, opts: { readOnly?: boolean; newSession?: boolean; network?: boolean } = {}) =>
    bwrapArgv({
      network: opts.network ? hostSupport().networkMode : 'none',
      resolvConf,
      username: s.username,
      workspace: workspaceDir(s),
      workspaceReadOnly: opts.readOnly,
      passwdFile: path.join(etcDir(s), 'passwd'),
      groupFile: path.join(etcDir(s), 'group'),
      hostUid: hostUid(s),
      newSession: opts.newSession ?? true,
      limits: options.limits,
      cgroupProcs: hostSupport().memory.cgroups?.procsFile(s.projectId) ?? null,
      ...(!disks && options.diskMb ? { fileSizeMb: options.diskMb } : {}),
    });

  /**
   * Running while the workspace exists: its image (bounded, mounted or to be mounted again after a restart
   * of the host), or its folder (unbounded: made before SANDBOX_DISK_MB was set, bounded from its next start).
   */
  const isRunning = (s: SandboxRef): boolean => Boolean(disks?.exists(workspaceDir(s))) || fs.existsSync(workspaceDir(s));
  const requireRunning = (s: SandboxRef): void => {
    if (!isRunning(s)) throw new SandboxError('not_running', 'The sandbox is not running');
  };

  /** Spawns a program inside the sandbox (no tty) and tracks it so that stop can end it. */
  const spawnInside = (
    s: SandboxRef,
    program: string[],
    opts: { readOnly?: boolean; env?: Record<string, string>; stdin?: 'pipe' | 'ignore'; network?: boolean } = {},
  ): ChildProcess => {
    refuseWhileClosing();
    attach(s);
    const { file, args } = argv(s, { readOnly: opts.readOnly, network: opts.network });
    const slirp = opts.network && hostSupport().networkMode === 'slirp';
    const child = spawn(file, [...args, ...program], {
      env: baseEnv(s.username, opts.env),
      cwd: '/',
      // fds 3 and 4: bwrap's --info-fd and --block-fd, for slirp4netns.
      stdio: slirp ? [opts.stdin ?? 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'] : [opts.stdin ?? 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stopNetwork = slirp ? attachSlirp(child.stdio[3] as Readable, child.stdio[4] as Writable, log, options.denyCidrs) : null;
    const set = processesOf(s.projectId).children;
    set.add(child);
    child.once('close', () => {
      set.delete(child);
      endNetwork(stopNetwork);
    });
    return child;
  };

  /** Runs a program inside the sandbox to completion, collecting stdout and stderr. */
  const run = (
    s: SandboxRef,
    program: string[],
    opts: { readOnly?: boolean; env?: Record<string, string>; input?: Readable } = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawnInside(s, program, { ...opts, stdin: opts.input ? 'pipe' : 'ignore' });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-10_000)));
      if (opts.input) opts.input.pipe(child.stdin!).on('error', () => undefined);
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });

  const killChild = (child: ChildProcess): void => {
    if (child.pid === undefined || child.exitCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };

  const ensureLayout = (s: SandboxRef): void => {
    // The server's alone (0700/0600): the sandbox reaches its workspace through bwrapArgv's private mount.
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
    fs.mkdirSync(dirOf(s), { recursive: true, mode: 0o700 });
    fs.chmodSync(dirOf(s), 0o700);
    fs.mkdirSync(backupsDir(s), { recursive: true, mode: 0o700 });
    fs.mkdirSync(etcDir(s), { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(etcDir(s), 'passwd'),
      `root:x:0:0:root:/root:/usr/sbin/nologin\n${s.username}:x:${SANDBOX_UID}:${SANDBOX_UID}:${s.username}:/home/${s.username}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
      { mode: 0o600 },
    );
    fs.writeFileSync(path.join(etcDir(s), 'group'), `root:x:0:\n${s.username}:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`, { mode: 0o600 });
  };

  /** An empty workspace owned by the sandbox user. */
  const makeWorkspace = (s: SandboxRef): void => {
    const dir = workspaceDir(s);
    if (disks) {
      disks.create(dir, hostUid(s)!);
      return;
    }
    fs.mkdirSync(dir, { mode: 0o700 });
    const uid = hostUid(s);
    if (uid !== null) fs.chownSync(dir, uid, uid);
  };

  const removeWorkspace = (s: SandboxRef): void => {
    if (disks && disks.exists(workspaceDir(s))) disks.discard(workspaceDir(s));
    // Never through a workspace still mounted: its files would go with it.
    else if (!isMountpoint(workspaceDir(s))) fs.rmSync(workspaceDir(s), { recursive: true, force: true });
  };

  const git = (s: SandboxRef, args: string[], readOnly = false) =>
    run(s, ['git', ...args], { readOnly, env: GIT_IDENTITY });

  const endProcesses = async (projectId: number): Promise<void> => {
    const entry = running.get(projectId);
    if (!entry) return;
    const closing = [...entry.children].map(
      (child) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('close', () => resolve()), killChild(child)))),
    );
    for (const shell of entry.shells) {
      closing.push(new Promise<void>((resolve) => shell.onExit(() => resolve())));
      try {
        shell.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    entry.shells.clear();
    await Promise.all(closing);
  };

  const zipOf = async (s: SandboxRef, inside: string, prefix: string, leaveOut: EntryFilter | undefined, holdsSecret?: ContentCheck): Promise<Readable> => {
    const child = spawnInside(s, ['tar', '-cf', '-', '--format=gnu', '-C', inside, '.'], { readOnly: true });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2_000)));
    const zip = tarToZip(child.stdout!, prefix, leaveOut, holdsSecret);
    child.once('close', (code) => {
      // GNU tar answers 1 when a file changed while being read: the archive is still whole.
      if (code !== 0 && code !== 1) zip.destroy(new SandboxError('failed', `Archiving failed: ${stderr.trim()}`));
    });
    zip.once('close', () => killChild(child));
    return zip;
  };

  return {
    kind: 'local',
    statusChangesOutside: false,

    async status(s): Promise<ContainerStatusName> {
      return isRunning(s) ? 'Running' : 'NotRunning';
    },

    async up(s): Promise<boolean> {
      ensureLayout(s);
      if (isRunning(s)) {
        attach(s);
        return true;
      }
      makeWorkspace(s);
      return false;
    },

    // Read on the host without following anything: the names in the folder, nothing of their contents.
    workspaceIsEmpty: async (s) => {
      attach(s);
      return fs.readdirSync(workspaceDir(s)).length === 0;
    },

    createWorkspace: (s) => createFreshWorkspace(run, s),

    async writeArchive(s, file): Promise<void> {
      const child = spawnInside(s, ['tar', '-czf', '-', '-C', workspaceOf(s.username), '.'], { readOnly: true });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2_000)));
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      await pipeline(child.stdout!, fs.createWriteStream(file, { mode: 0o600 }));
      const code = await exited;
      // GNU tar answers 1 when a file changed while being read; so does bwrap when it could not start tar at
      // all (no process slot left): the rules read the archive back, which tells the two apart.
      if (code !== 0 && code !== 1) throw new SandboxError('failed', stderr.trim() || `tar exited with ${code}`);
    },

    async restoreArchive(s, file): Promise<void> {
      const result = await run(s, ['tar', '-xzf', '-', '--no-same-owner', '-C', workspaceOf(s.username)], { input: fs.createReadStream(file) });
      if (result.code !== 0) throw new SandboxError('failed', result.stderr.trim() || `tar exited with ${result.code}`);
    },

    quiesce: (s) => endProcesses(s.projectId),

    async down(s): Promise<void> {
      await endProcesses(s.projectId);
      await host?.memory.cgroups?.remove(s.projectId);
      removeWorkspace(s);
    },

    async abandon(s): Promise<void> {
      await endProcesses(s.projectId);
      removeWorkspace(s);
    },

    async exec(s, command, opts: ExecOptions = {}): Promise<ExecResult> {
      requireRunning(s);
      const { argv: loader, stdin } = commandOnStdin(command);
      const child = spawnInside(s, loader, { env: opts.env, network: true, stdin: 'pipe' });
      // Ended at once: the loader reads exactly the command's bytes, then gives the command /dev/null.
      child.stdin!.on('error', () => undefined).end(stdin);
      const tracker = execTracker(opts, { timeoutMs: options.execTimeoutMs, maxOutput }, () => killChild(child));
      for (const stream of ['stdout', 'stderr'] as const) {
        child[stream]!.setEncoding('utf8').on('data', (d: string) => tracker.chunk(d, stream));
      }
      let code: number | null;
      try {
        code = await new Promise<number | null>((resolve, reject) => {
          child.once('error', reject);
          child.once('close', (c) => resolve(c));
        });
      } catch (err) {
        tracker.finish(null);
        throw err;
      }
      return tracker.finish(code);
    },

    shell(s, opts: ShellOptions): SandboxPty {
      refuseWhileClosing();
      requireRunning(s);
      attach(s);
      // No --new-session: the pty must stay the shell's controlling terminal, or Ctrl-C reaches nobody.
      // The terminal is the sandbox's own, so TIOCSTI on it injects into nothing but itself.
      const inside = argv(s, { newSession: false, network: true });
      // node-pty cannot pass fds 3 and 4: with slirp the sandbox's sync fds are FIFOs opened by a wrapper.
      const wrapped = hostSupport().networkMode === 'slirp' ? fifoWrapper(path.join(dirOf(s), 'run'), [inside.file, ...inside.args, 'bash', '-l']) : null;
      const { file, args } = wrapped ?? { file: inside.file, args: [...inside.args, 'bash', '-l'] };
      const term = pty.spawn(file, args, {
        name: 'xterm-256color',
        cols: opts.cols,
        rows: opts.rows,
        cwd: '/',
        env: baseEnv(s.username, { TERM: 'xterm-256color', PS1: '\\u@sandbox:\\w\\$ ', ...opts.env }),
      });
      const stopNetwork = wrapped ? attachSlirp(wrapped.info, wrapped.block, log, options.denyCidrs) : null;
      const shells = processesOf(s.projectId).shells;
      shells.add(term);
      term.onExit(() => {
        shells.delete(term);
        endNetwork(stopNetwork);
        wrapped?.cleanup();
      });
      return {
        pid: term.pid,
        write: (data) => term.write(data),
        resize: (cols, rows) => term.resize(cols, rows),
        pause: () => term.pause(),
        resume: () => term.resume(),
        onData: (listener) => term.onData(listener),
        onExit: (listener) => term.onExit(listener),
        kill: () => {
          try {
            term.kill('SIGKILL');
          } catch {
            // already gone
          }
        },
      };
    },

    async zipWorkspace(s, zipOptions): Promise<Readable> {
      requireRunning(s);
      return zipOf(s, workspaceOf(s.username), '', secretFilter('', zipOptions?.includeSecrets), contentCheckOf(zipOptions));
    },

    async zipFolder(s, relativePath, zipOptions): Promise<Readable> {
      requireRunning(s);
      const workspace = workspaceOf(s.username);
      const target = relativePath ? `${workspace}/${relativePath}` : workspace;
      // Resolved inside the sandbox: a symlink there may point anywhere in its view, never into the host.
      const check = await run(
        s,
        ['bash', '-c', 'p=$(realpath -e -- "$1") || exit 3; case "$p/" in "$2"/*) ;; *) exit 4;; esac; [ -d "$p" ] || exit 5; printf %s "$p"', 'check', target, workspace],
        { readOnly: true },
      );
      if (check.code === 3 || check.code === 5) throw new SandboxError('not_found', `No such folder: ${target}`);
      if (check.code === 4) throw new SandboxError('outside_workspace', 'The path leads outside the workspace');
      if (check.code !== 0) throw new SandboxError('failed', check.stderr.trim());
      return zipOf(s, check.stdout, '', projectFolderFilter(relativePath, zipOptions?.includeSecrets), contentCheckOf(zipOptions));
    },

    async commitStep(s, stepNumber, command, secretForms): Promise<string> {
      requireRunning(s);
      return commitStep(run, s, stepNumber, command, secretForms);
    },

    async history(s, limit = 200): Promise<SandboxCommit[]> {
      requireRunning(s);
      const result = await git(s, ['log', `-n${limit}`, `--format=${HISTORY_FORMAT}`], true);
      if (result.code !== 0) {
        if (/does not have any commits|not a git repository/.test(result.stderr)) return [];
        throw new SandboxError('failed', `Reading the history failed: ${result.stderr.trim()}`);
      }
      return parseHistory(result.stdout);
    },

    /** Ends every program, shell and slirp4netns this driver started, and resolves once they are reaped. */
    async close(): Promise<void> {
      closing = true;
      await Promise.all([...running.keys()].map(endProcesses));
      await Promise.all([...endingNetworks]);
      await host?.memory.cgroups?.removeAll();
      detachWorkspaces();
    },

    killAll(): void {
      closing = true;
      for (const entry of running.values()) {
        for (const child of entry.children) killChild(child);
        for (const shell of entry.shells) {
          try {
            // node-pty starts the shell as a session (and group) leader: its group is the whole sandbox.
            process.kill(-shell.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
      // The process exits next: its mounts would outlive it (the programs just killed are still dying, so lazily).
      detachWorkspaces();
    },
  };
}
