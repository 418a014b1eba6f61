import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import type { V1Pod } from '@kubernetes/client-node';
import type { ContainerStatusName } from '../../../shared/constants/sandbox';
import { createBackupStore } from '../backups';
import { contentCheckOf, SandboxError, type SandboxDriver, type SandboxRef } from '../driver';
import { withSandboxRules, type SandboxTransport } from '../rules';
import { createContainerProcesses, type ExecStream, type TtyConnect } from '../remote/processes';
import { createFreshWorkspace, linkSshKeys, resolveFolder, workspaceIsEmpty, workspaceOf } from '../remote/workspace';
import { tarToZip, type ContentCheck, type EntryFilter } from '../tarToZip';
import { projectFolderFilter, secretFilter } from '../workspaceLayout';
import { messageOf, statusCodeOf, type KubernetesClients } from './connection';
import { claimManifest, claimName, noNetworkPolicy, podManifest, podName, SANDBOX_CONTAINER, type SandboxPodSettings } from './manifests';
import { envScript, openPodExec, withEnv, type ExecTarget } from './podExec';

export interface KubernetesDriverOptions {
  /** The cluster, connected on first use (`connectKubernetes`), so that the client loads only when needed. */
  connect: () => Promise<KubernetesClients>;
  /** DATA_DIR/sandboxes: `<projectId>/backups/` holds the workspace archives. */
  root: string;
  namespace: string;
  /** Image of every sandbox; needs bash, git, tar, gzip, coreutils and util-linux (`setsid`). */
  image: string;
  /** RuntimeClass of the pods (gVisor, Kata); the cluster's default when absent. */
  runtimeClass?: string;
  /** StorageClass of the workspace claims; the cluster's default when absent. */
  storageClass?: string;
  /** Size of each workspace claim, `10Gi`. */
  storageSize: string;
  /** Off: a deny-all NetworkPolicy covers the sandbox pods. */
  network: boolean;
  /** Memory limit in MiB; 0 for none. */
  memoryMb: number;
  /** CPU limit; 0 for none. */
  cpus: number;
  execTimeoutMs: number;
  /** Longest wait for a pod to run (scheduling, image pull, volume attach). */
  startTimeoutMs?: number;
  /** Longest wait for a deleted pod to be gone. */
  stopTimeoutMs?: number;
  /** Interval of the pod status polls while starting and stopping. */
  pollMs?: number;
  tmpSizeMb?: number;
  maxOutputChars?: number;
  keepBackups?: number;
  /** Prefix of pod and claim names. */
  namePrefix?: string;
}

/** Waiting reasons of the sandbox container that no amount of waiting will cure. */
const FATAL_WAITING = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'CreateContainerConfigError', 'CreateContainerError', 'CrashLoopBackOff', 'RunContainerError']);

/** The part of the part-2 status vocabulary a pod maps to. */
function statusOf(pod: V1Pod): ContainerStatusName {
  if (pod.metadata?.deletionTimestamp) return 'Pending';
  switch (pod.status?.phase) {
    case 'Running': {
      const sandbox = pod.status.containerStatuses?.find((c) => c.name === SANDBOX_CONTAINER);
      return sandbox?.state?.running ? 'Running' : 'Waiting';
    }
    case 'Succeeded':
      return 'Stopped';
    case 'Failed':
      return 'Terminated';
    default:
      return 'Pending';
  }
}

/** Why a pod will never run, or null while it still may. */
function fatalReason(pod: V1Pod): string | null {
  if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') return `the pod ${pod.status.phase.toLowerCase()}: ${pod.status.message ?? pod.status.reason ?? ''}`.trim();
  const inits = pod.status?.initContainerStatuses ?? [];
  for (const c of [...inits, ...(pod.status?.containerStatuses ?? [])]) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) return `${c.name}: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ''}`;
  }
  // Only the init container's failure is final: the sandbox container is restarted (restartPolicy Always).
  for (const c of inits) {
    const terminated = c.state?.terminated;
    if (terminated && terminated.exitCode !== 0) return `${c.name} exited with ${terminated.exitCode}${terminated.message ? `: ${terminated.message}` : ''}`;
  }
  return null;
}

/** What keeps a pending pod waiting (Unschedulable and the like), for the timeout's message. */
const pendingReason = (pod: V1Pod | null): string =>
  pod?.status?.conditions?.find((c) => c.status === 'False' && c.message)?.message ?? pod?.status?.phase ?? 'no pod';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The kubernetes driver: the kubernetes transport under the sandbox rules (../rules.ts). */
export function createKubernetesDriver(options: KubernetesDriverOptions): SandboxDriver {
  const root = path.resolve(options.root);
  const backups = createBackupStore((s) => path.join(root, String(s.projectId), 'backups'), options.keepBackups ?? 3);
  return withSandboxRules(createKubernetesTransport(options), backups);
}

/**
 * The kubernetes transport: per project a PersistentVolumeClaim (`<prefix>-<projectId>-workspace`) and a
 * hardened pod (`<prefix>-<projectId>`, see `podManifest`) in one namespace; programs run through the
 * exec API. A stop deletes the pod and keeps the claim, so the next start finds the workspace as it was;
 * the backups (a tar.gz made inside the pod, kept on this server like the other drivers') are restored
 * when a start finds the workspace empty — a new claim, or one lost with its cluster.
 */
export function createKubernetesTransport(options: KubernetesDriverOptions): SandboxTransport {
  const settings: SandboxPodSettings = {
    namespace: options.namespace,
    namePrefix: options.namePrefix ?? 'devops-agents-sandbox',
    image: options.image,
    runtimeClass: options.runtimeClass,
    storageClass: options.storageClass,
    storageSize: options.storageSize,
    memoryMb: options.memoryMb,
    cpus: options.cpus,
    tmpSizeMb: options.tmpSizeMb ?? 512,
  };
  const { namespace } = options;
  const pollMs = options.pollMs ?? 1_000;

  let clients: Promise<KubernetesClients> | null = null;
  /** The cluster, connected once; a failed connection is tried again on the next call. */
  const api = (): Promise<KubernetesClients> =>
    (clients ??= options.connect().catch((err: unknown) => {
      clients = null;
      throw new SandboxError('failed', `Connecting to the cluster failed: ${(err as Error).message}`);
    }));

  const target = (s: SandboxRef): ExecTarget => ({ namespace, pod: podName(settings, s), container: SANDBOX_CONTAINER });

  const readPod = async (s: SandboxRef): Promise<V1Pod | null> => {
    const { core } = await api();
    try {
      return await core.readNamespacedPod({ name: podName(settings, s), namespace });
    } catch (err) {
      if (statusCodeOf(err) === 404) return null;
      throw new SandboxError('failed', `Reading the pod failed: ${messageOf(err)}`);
    }
  };

  const requireRunning = async (s: SandboxRef): Promise<void> => {
    const pod = await readPod(s);
    if (!pod || statusOf(pod) !== 'Running') throw new SandboxError('not_running', 'The sandbox is not running');
  };

  /** Creates an object unless it exists (409 AlreadyExists: another call or server replica was first). */
  const createUnlessExists = async (what: string, create: () => Promise<unknown>): Promise<void> => {
    try {
      await create();
    } catch (err) {
      if (statusCodeOf(err) !== 409) throw new SandboxError('failed', `Creating the ${what} failed: ${messageOf(err)}`);
    }
  };

  /** Output of an exec as a stream: the socket is paused while the reader is behind. */
  const streamOut = async (s: SandboxRef, argv: string[]): Promise<{ stream: Readable; done: Promise<{ code: number | null; stderr: string }> }> => {
    const { exec } = await api();
    const command = withEnv(argv);
    let stderr = '';
    let execution: Awaited<ReturnType<typeof openPodExec>> | null = null;
    const stream = new Readable({ read: () => execution?.resume() });
    execution = await openPodExec(exec, target(s), command.argv, {
      tty: false,
      onStdout: (chunk) => {
        if (!stream.push(chunk)) execution?.pause();
      },
      onStderr: (chunk) => (stderr = (stderr + chunk.toString('utf8')).slice(-2_000)),
    });
    stream.once('close', () => execution?.close());
    const done = execution.exitCode.then((code) => {
      stream.push(null);
      return { code, stderr };
    });
    done.catch((err: unknown) => stream.destroy(err as Error));
    return { stream, done };
  };

  const execStream: ExecStream = async (s, argv, opts) => {
    const { exec } = await api();
    // With bytes of its own for stdin the program keeps the exec's stdin, after the environment's.
    const command = withEnv(argv, opts.env, Boolean(opts.stdin));
    const input = opts.stdin ? Buffer.concat([command.stdin, opts.stdin]) : command.stdin;
    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const decode = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = decoders[stream].write(chunk);
      if (text) opts.onText(text, stream);
    };
    const execution = await openPodExec(exec, target(s), command.argv, { tty: false, onStdout: decode('stdout'), onStderr: decode('stderr') });
    const onAbort = (): void => execution.close();
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (input.length) await execution.send(input).catch(() => undefined);
      return await execution.exitCode;
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = decoders[stream].end();
        if (rest) opts.onText(rest, stream);
      }
    }
  };

  /**
   * A tty exec. Its environment (TERM, PS1 and a terminal's User Secrets) is first written by a non-tty exec
   * on its stdin into a file of mode 0600 in the pod, which the shell sources and removes before it starts:
   * on the tty exec's URL (which API server audit logs record) or on `env`'s command line (which ps on the
   * node shows) the values would be seen; typed into the tty they would be echoed.
   */
  const connectTty: TtyConnect = async (s, argv, opts) => {
    const { exec } = await api();
    const decoder = new StringDecoder('utf8');
    const file = `/tmp/.tty-env-${randomUUID()}`;
    const script = envScript(opts.env);
    const written = await execStream(s, ['bash', '-c', 'umask 077 && head -c "$2" > "$1"', 'env', file, String(script.length)], { onText: () => undefined, stdin: script });
    if (written !== 0) throw new SandboxError('failed', `Handing the shell its environment failed (exit ${written})`);
    const execution = await openPodExec(exec, target(s), ['bash', '-c', '. "$1"; rm -f -- "$1"; shift; exec "$@"', 'env', file, ...argv], {
      tty: true,
      onStdout: (chunk) => {
        const data = decoder.write(chunk);
        if (data) opts.onData(data);
      },
    });
    return {
      write: (data) => void execution.send(Buffer.from(data, 'utf8')).catch(() => undefined),
      resize: (cols, rows) => execution.resize(cols, rows),
      pause: () => execution.pause(),
      resume: () => execution.resume(),
      close: () => execution.close(),
      exited: execution.exitCode.catch(() => null),
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

  /** A tar.gz streamed into the empty workspace; `head -c` ends tar's input where the archive does. */
  const restoreArchive = async (s: SandboxRef, file: string): Promise<void> => {
    const { exec } = await api();
    const size = fs.statSync(file).size;
    let stderr = '';
    const command = withEnv(['bash', '-c', 'head -c "$1" | tar -xzf - --no-same-owner -C "$2"', 'restore', String(size), workspaceOf(s.username)], {}, true);
    const execution = await openPodExec(exec, target(s), command.argv, {
      tty: false,
      onStdout: () => undefined,
      onStderr: (chunk) => (stderr = (stderr + chunk.toString('utf8')).slice(-2_000)),
    });
    try {
      for await (const chunk of fs.createReadStream(file, { highWaterMark: 256 * 1024 })) await execution.send(chunk as Buffer);
    } catch {
      // The command ended early: its exit code and stderr say why.
    }
    const code = await execution.exitCode;
    if (code !== 0) throw new SandboxError('failed', stderr.trim() || `exit ${code}`);
  };

  /** Polls the pod until its sandbox container runs; a pod that can never run is deleted and reported. */
  const waitRunning = async (s: SandboxRef): Promise<void> => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 300_000);
    let pod: V1Pod | null = null;
    while (Date.now() < deadline) {
      pod = await readPod(s);
      if (pod && statusOf(pod) === 'Running') return;
      const fatal = pod && fatalReason(pod);
      if (fatal) {
        await deletePod(s).catch(() => undefined);
        throw new SandboxError('failed', `The sandbox pod cannot run: ${fatal}`);
      }
      await sleep(pollMs);
    }
    throw new SandboxError('failed', `The sandbox pod did not start in time: ${pendingReason(pod)}`);
  };

  const deletePod = async (s: SandboxRef): Promise<void> => {
    const { core } = await api();
    try {
      await core.deleteNamespacedPod({ name: podName(settings, s), namespace });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw new SandboxError('failed', `Deleting the pod failed: ${messageOf(err)}`);
    }
  };

  const waitGone = async (s: SandboxRef): Promise<void> => {
    const deadline = Date.now() + (options.stopTimeoutMs ?? 120_000);
    while (Date.now() < deadline) {
      if (!(await readPod(s))) return;
      await sleep(pollMs);
    }
    throw new SandboxError('failed', 'The sandbox pod is still terminating');
  };

  const createObjects = async (s: SandboxRef): Promise<void> => {
    const { core, networking } = await api();
    if (!options.network) {
      await createUnlessExists('network policy', () => networking.createNamespacedNetworkPolicy({ namespace, body: noNetworkPolicy(settings) }));
    }
    try {
      await core.readNamespacedPersistentVolumeClaim({ name: claimName(settings, s), namespace });
    } catch (err) {
      if (statusCodeOf(err) !== 404) throw new SandboxError('failed', `Reading the workspace claim failed: ${messageOf(err)}`);
      await createUnlessExists('workspace claim', () => core.createNamespacedPersistentVolumeClaim({ namespace, body: claimManifest(settings, s) }));
    }
    await createUnlessExists('pod', () => core.createNamespacedPod({ namespace, body: podManifest(settings, s) }));
  };

  const bringUp = async (s: SandboxRef): Promise<boolean> => {
    let pod = await readPod(s);
    if (pod && statusOf(pod) === 'Running') return true;
    try {
      if (pod?.metadata?.deletionTimestamp) {
        await waitGone(s);
        pod = null;
      }
      if (pod && fatalReason(pod)) {
        await deletePod(s);
        await waitGone(s);
        pod = null;
      }
      if (!pod) await createObjects(s);
      await waitRunning(s);
      return false;
    } catch (err) {
      throw err instanceof SandboxError ? err : new SandboxError('failed', `Starting the sandbox failed: ${(err as Error).message}`);
    }
  };

  /** Deletes the pod and waits for it to be gone; the claim stays. */
  const down = async (s: SandboxRef): Promise<void> => {
    processes.end(s.projectId);
    await deletePod(s);
    await waitGone(s);
  };

  /** A tar of a folder of the workspace, entries relative to it, as a zip; a failed tar fails the zip. */
  const zipOf = async (s: SandboxRef, folder: string, leaveOut: EntryFilter | undefined, holdsSecret?: ContentCheck): Promise<Readable> => {
    const { stream, done } = await streamOut(s, ['tar', '-cf', '-', '--format=gnu', '-C', folder, '.']);
    const zip = tarToZip(stream, '', leaveOut, holdsSecret);
    // GNU tar answers 1 when a file changed while being read: the archive is still whole.
    done.then(
      ({ code, stderr }) => {
        if (code !== 0 && code !== 1) zip.destroy(new SandboxError('failed', `Archiving failed: ${stderr.trim() || `exit ${code}`}`));
      },
      (err: unknown) => zip.destroy(err as Error),
    );
    return zip;
  };

  return {
    kind: 'kubernetes',
    statusChangesOutside: true,

    async status(s): Promise<ContainerStatusName> {
      const pod = await readPod(s);
      return pod ? statusOf(pod) : 'NotRunning';
    },

    up: bringUp,
    workspaceIsEmpty: (s) => workspaceIsEmpty(run, s),
    createWorkspace: (s) => createFreshWorkspace(run, s),
    ready: (s) => linkSshKeys(run, s),

    async writeArchive(s, file): Promise<void> {
      const { stream, done } = await streamOut(s, ['tar', '-czf', '-', '-C', workspaceOf(s.username), '.']);
      await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }));
      const { code, stderr } = await done;
      if (code !== 0 && code !== 1) throw new SandboxError('failed', stderr.trim() || `tar exited with ${code}`);
    },

    restoreArchive,
    // Only the processes this server started: the pod itself runs on until `down` (its claim is kept either way).
    quiesce: async (s) => processes.end(s.projectId),
    down,
    /**
     * The claim was empty before the failed fill: emptied again (a half-restored workspace would otherwise
     * count as filled at the next start), and the pod deleted.
     */
    async abandon(s): Promise<void> {
      await run(s, ['find', workspaceOf(s.username), '-mindepth', '1', '-delete']).catch(() => undefined);
      await down(s);
    },
    ...processes.members,

    async zipWorkspace(s, options): Promise<Readable> {
      await requireRunning(s);
      return zipOf(s, workspaceOf(s.username), secretFilter('', options?.includeSecrets), contentCheckOf(options));
    },

    async zipFolder(s, relativePath, options): Promise<Readable> {
      await requireRunning(s);
      return zipOf(s, await resolveFolder(run, s, relativePath), projectFolderFilter(relativePath, options?.includeSecrets), contentCheckOf(options));
    },
  };
}
