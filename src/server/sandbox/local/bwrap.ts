import fs from 'node:fs';
import { homeOf, SSH_KEYS_FOLDER, workspaceOf } from '../workspaceLayout';
import { networkArgs, type NetworkMode } from './userNetwork';

/** Resource and isolation settings of the local driver, from configuration. */
export interface LocalSandboxLimits {
  /** Network for the commands and shells of a sandbox (its own through slirp4netns, or the host's without it). */
  network: boolean;
  /** Address-space limit per process in MiB (RLIMIT_AS); 0 for none. */
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
 * The argv that starts a program inside the sandbox: `[setpriv …] [prlimit …] bwrap … --`, to which the
 * caller appends the program. The root is built from the host's /usr and /etc read-only, with fresh
 * /proc, /dev and /tmp; nothing else of the host is visible (not DATA_DIR, not the server's keys or
 * processes, not other workspaces). The environment is passed through spawn's `env`, never on the
 * command line, so secrets do not show in the host's process list.
 */
export function bwrapArgv(spec: BwrapSpec): { file: string; args: string[] } {
  const home = homeOf(spec.username);
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
    spec.passwdFile,
    '/etc/passwd',
    '--ro-bind',
    spec.groupFile,
    '/etc/group',
    ...(spec.network === 'slirp' && spec.resolvConf ? ['--ro-bind', spec.resolvConf, '/etc/resolv.conf'] : []),
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
    spec.workspace,
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

  const prefix: string[] = [];
  if (spec.hostUid !== null) {
    prefix.push('setpriv', '--reuid', String(spec.hostUid), '--regid', String(spec.hostUid), '--clear-groups', '--');
  }
  const limits: string[] = [];
  if (spec.limits.memoryMb > 0) limits.push(`--as=${spec.limits.memoryMb * 1024 * 1024}`);
  if (spec.limits.cpuSeconds > 0) limits.push(`--cpu=${spec.limits.cpuSeconds}`);
  // RLIMIT_NPROC counts every process of the host user: only meaningful with a uid of its own.
  if (spec.hostUid !== null && spec.limits.maxProcesses > 0) limits.push(`--nproc=${spec.limits.maxProcesses}`);
  if (limits.length) prefix.push('prlimit', ...limits, '--');
  const argv = [...prefix, ...bwrap];
  return { file: argv[0]!, args: argv.slice(1) };
}

