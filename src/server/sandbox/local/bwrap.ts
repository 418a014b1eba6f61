import fs from 'node:fs';
import { homeOf, SSH_KEYS_FOLDER, workspaceOf } from '../workspaceLayout';
import { networkArgs, type NetworkMode } from './userNetwork';

/** Resource and isolation settings of the local driver, from configuration. */
export interface LocalSandboxLimits {
  /** Network for the commands and shells of a sandbox (its own through slirp4netns, or the host's without it). */
  network: boolean;
  /** Memory of the whole sandbox in MiB (its cgroup), else address space per process (RLIMIT_AS); 0 for none. */
  memoryMb: number;
  /** Processes of the sandbox's host user (RLIMIT_NPROC); applied only with a dedicated host uid. */
  maxProcesses: number;
  /** CPU seconds per process (RLIMIT_CPU); 0 for none. */
  cpuSeconds: number;
}

export interface BwrapSpec {
  username: string;
  /** Host path bound at /home/{username}/workspace. */
  workspace: string;
  /** Read-only instead of read-write (backups, zips, history). */
  workspaceReadOnly?: boolean;
  /** Host files replacing /etc/passwd and /etc/group, so the user has a name and no host account is listed. */
  passwdFile: string;
  groupFile: string;
  /** Host uid/gid the sandbox runs as (a dedicated one per project when the server runs as root). */
  hostUid: number | null;
  /** `--new-session` (no controlling terminal): for commands without a pty; a pty shell needs its tty for Ctrl-C. */
  newSession: boolean;
  /** `none` for the driver's own work (git, tar); `slirp` or `host` for commands and shells when network is on. */
  network: NetworkMode;
  /** Host file bound at /etc/resolv.conf with the slirp network (the host's resolver may be on its loopback). */
  resolvConf?: string;
  limits: LocalSandboxLimits;
  /** The cgroup.procs file of the sandbox's memory cgroup (./memoryCgroup.ts); null: RLIMIT_AS instead. */
  cgroupProcs?: string | null;
  /** Largest file in MiB (RLIMIT_FSIZE): SANDBOX_DISK_MB where the workspace cannot be a bounded filesystem. */
  fileSizeMb?: number;
}

export const SANDBOX_UID = 1000;

// The workspace's layout is every driver's; the SSH keys folder is also shown as `~/.ssh` here.
export { baseEnv, homeOf, SSH_KEYS_FOLDER, workspaceOf } from '../workspaceLayout';

const exists = (p: string): boolean => {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * Where the host paths a sandbox binds are shown to its bwrap when the server runs as root: DATA_DIR is
 * the server's alone (0700), so the project's own uid could not reach its workspace there. A private
 * mount namespace (made as root, before the uid is dropped) puts a tmpfs on /tmp holding the workspace
 * (bind-mounted through a file descriptor opened before /tmp is covered, as the small /etc files it
 * copies are read through theirs); the host's
 * /tmp and DATA_DIR stay as they are for everyone else. Also sets the umask sandbox files are made with
 * (the server's own is 077).
 */
const DOOR = '/tmp';
/** Every wrapper first joins the sandbox's memory cgroup ($1, when given): what it execs stays in it. */
const JOIN_CGROUP = 'if [ -n "$1" ]; then echo $$ > "$1"; fi; shift';
const DOOR_SCRIPT = [
  'set -e',
  JOIN_CGROUP,
  'exec 7<"$1" 8<"$2" 9<"$3"',
  'if [ -n "$4" ]; then exec 6<"$4"; fi',
  `mount -t tmpfs -o mode=0711,size=1m da-sandbox-door ${DOOR}`,
  `mkdir -m 0700 ${DOOR}/workspace && chown --reference=/proc/self/fd/7 ${DOOR}/workspace`,
  `mount --bind /proc/self/fd/7 ${DOOR}/workspace`,
  'umask 022',
  `cat <&8 >${DOOR}/passwd && cat <&9 >${DOOR}/group`,
  `if [ -n "$4" ]; then cat <&6 >${DOOR}/resolv.conf; fi`,
  'exec 6<&- 7<&- 8<&- 9<&-',
  'shift 4',
  'exec "$@"',
].join('\n');
const UMASK_SCRIPT = `set -e; ${JOIN_CGROUP}; umask 022; exec "$@"`;

/**
 * The argv that starts a program inside the sandbox: `[setpriv …] [prlimit …] bwrap … --`, to which the
 * caller appends the program. The root is built from the host's /usr and /etc read-only, with fresh
 * /proc, /dev and /tmp; nothing else of the host is visible (not DATA_DIR, not the server's keys or
 * processes, not other workspaces). The environment is passed through spawn's `env`, never on the
 * command line, so secrets do not show in the host's process list.
 */
export function bwrapArgv(spec: BwrapSpec): { file: string; args: string[] } {
  const home = homeOf(spec.username);
  const resolvConf = spec.network === 'slirp' && spec.resolvConf ? spec.resolvConf : undefined;
  const viaDoor = spec.hostUid !== null;
  const source = viaDoor
    ? { workspace: `${DOOR}/workspace`, passwd: `${DOOR}/passwd`, group: `${DOOR}/group`, resolvConf: `${DOOR}/resolv.conf` }
    : { workspace: spec.workspace, passwd: spec.passwdFile, group: spec.groupFile, resolvConf };
  const bwrap = [
    'bwrap',
    '--unshare-all',
    // No nested user namespaces: `unshare -Ur` inside would give the program uid 0 and every capability
    // over namespaces of its own. bwrap always runs unprivileged here (setpriv drops root first).
    '--unshare-user',
    '--disable-userns',
    ...networkArgs(spec.network),
    '--die-with-parent',
    ...(spec.newSession ? ['--new-session'] : []),
    '--hostname',
    'sandbox',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--ro-bind',
    '/usr',
    '/usr',
    '--ro-bind',
    '/etc',
    '/etc',
    '--ro-bind',
    source.passwd,
    '/etc/passwd',
    '--ro-bind',
    source.group,
    '/etc/group',
    ...(resolvConf ? ['--ro-bind', source.resolvConf!, '/etc/resolv.conf'] : []),
  ];
  for (const link of ['bin', 'lib', 'lib32', 'lib64', 'libx32', 'sbin']) {
    const host = `/${link}`;
    let target: string | null = null;
    try {
      target = fs.readlinkSync(host);
    } catch {
      target = null;
    }
    if (target !== null) bwrap.push('--symlink', target, host);
    else if (exists(host)) bwrap.push('--ro-bind', host, host);
  }
  bwrap.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/run',
    '--tmpfs',
    '/var',
    '--dir',
    '/var/tmp',
    '--tmpfs',
    '/home',
    '--dir',
    home,
    spec.workspaceReadOnly ? '--ro-bind' : '--bind',
    source.workspace,
    workspaceOf(spec.username),
    // The home is a fresh tmpfs each time: ~/.ssh (where plans put the deploy key and ssh its
    // known_hosts) is the workspace's ssh-keys folder, kept across steps, shells and backups and out of
    // the git history. A symlink made inside the sandbox, resolved in its own view: whatever a command
    // puts at ssh-keys, it cannot point the mount at a host path.
    '--symlink',
    `${workspaceOf(spec.username)}/${SSH_KEYS_FOLDER}`,
    `${home}/.ssh`,
    '--chdir',
    workspaceOf(spec.username),
    '--',
  );

  const prefix: string[] = viaDoor
    ? ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', DOOR_SCRIPT, 'sh', spec.cgroupProcs ?? '', spec.workspace, spec.passwdFile, spec.groupFile, resolvConf ?? '']
    : ['sh', '-c', UMASK_SCRIPT, 'sh', spec.cgroupProcs ?? ''];
  if (spec.hostUid !== null) {
    prefix.push('setpriv', '--reuid', String(spec.hostUid), '--regid', String(spec.hostUid), '--clear-groups', '--');
  }
  const limits: string[] = [];
  if (spec.limits.memoryMb > 0 && !spec.cgroupProcs) limits.push(`--as=${spec.limits.memoryMb * 1024 * 1024}`);
  if (spec.limits.cpuSeconds > 0) limits.push(`--cpu=${spec.limits.cpuSeconds}`);
  if (spec.fileSizeMb) limits.push(`--fsize=${spec.fileSizeMb * 1024 * 1024}`);
  // RLIMIT_NPROC counts every process of the host user: only meaningful with a uid of its own.
  if (spec.hostUid !== null && spec.limits.maxProcesses > 0) limits.push(`--nproc=${spec.limits.maxProcesses}`);
  if (limits.length) prefix.push('prlimit', ...limits, '--');
  const argv = [...prefix, ...bwrap];
  return { file: argv[0]!, args: argv.slice(1) };
}

