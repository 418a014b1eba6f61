import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import * as pty from 'node-pty';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenOnLoopback, type Listening } from './fakeServer';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'kubernetes');
const fixture = <T = Record<string, unknown>>(name: string): T =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as T;

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
  /** The status code the fake answered. */
  status?: number;
}

/** One exec as the fake received it. */
export interface RecordedExec {
  pod: string;
  container: string;
  command: string[];
  tty: boolean;
  stdin: boolean;
  protocol: string;
  /** Channel-4 frames, parsed. */
  resizes: Array<{ width: number; height: number }>;
}

interface Mount {
  name: string;
  mountPath: string;
  subPath?: string;
}
interface ContainerSpec {
  name: string;
  command?: string[];
  workingDir?: string;
  env?: Array<{ name: string; value: string }>;
  volumeMounts?: Mount[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; readOnlyRootFilesystem?: boolean };
}
export interface PodManifest {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> } & Record<string, unknown>;
  spec: {
    initContainers?: ContainerSpec[];
    containers: ContainerSpec[];
    volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: Record<string, unknown> }>;
    securityContext?: { runAsUser?: number; runAsGroup?: number };
  } & Record<string, unknown>;
}

interface Pod {
  manifest: PodManifest;
  uid: string;
  created: string;
  reads: number;
  phase: 'Pending' | 'Running';
  initFailure: { exitCode: number; message: string } | null;
  deleted: string | null;
  /** Host folders of the pod's emptyDir volumes. */
  emptyDirs: Map<string, string>;
  processes: Set<{ kill(): void }>;
}

interface Claim {
  manifest: Record<string, unknown> & { metadata: { name: string } };
  dir: string;
  uid: string;
}

const statusOf = (code: 404 | 409, kind: string, name: string): Record<string, unknown> => {
  const status = fixture<{ message: string; details: Record<string, string> }>(code === 404 ? 'status-not-found' : 'status-already-exists');
  return {
    ...status,
    message: code === 404 ? `${kind} "${name}" not found` : `${kind} "${name}" already exists`,
    details: { name, kind },
  };
};

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * A Kubernetes API server replay for the kubernetes driver: pods, persistent volume claims and network
 * policies with the shapes the real API answers (a pod Pending until read `pendingReads` times, then
 * Running; a deleted pod Terminating for one more read; 404 NotFound and 409 AlreadyExists Status
 * bodies), and the exec WebSocket speaking `v4.channel.k8s.io` — every binary frame led by its channel
 * byte (0 stdin, 1 stdout, 2 stderr, 3 the final Status, 4 resize).
 *
 * Execs run for real: each in bubblewrap, as uid 1000, with the pod's view — the claim's folder and the
 * emptyDirs mounted where the pod spec says (subPath included), a read-only root, the container's env,
 * one pid namespace shared with the host (so a process group killed from a second exec dies, as in a
 * pod). Init containers run the same way when the pod starts.
 */
export class FakeKubernetesApi {
  readonly requests: RecordedRequest[] = [];
  readonly execs: RecordedExec[] = [];
  readonly pods = new Map<string, Pod>();
  readonly claims = new Map<string, Claim>();
  readonly networkPolicies = new Map<string, unknown>();
  /** GETs of a new pod that answer Pending before it runs. */
  pendingReads = 1;
  /** Commands (argv joined with spaces, init containers' too) matching this fail with exit 2 before running, e.g. to fail a backup. */
  failCommands: RegExp | null = null;
  /** Names of pods and claims whose next GET answers 404 although they exist: a read that raced another server's create. */
  readonly hideOnce = new Set<string>();
  /** The subprotocol chosen from the client's offer. */
  protocol = 'v4.channel.k8s.io';
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-k8s-'));
  port = 0;
  private server = http.createServer((req, res) => void this.handle(req, res));
  private wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered: Set<string>) => (offered.has(this.protocol) ? this.protocol : false),
  });
  private listening: Listening | null = null;
  private nextUid = 0;

  async listen(): Promise<void> {
    this.listening = await listenOnLoopback(this.server, (req, socket, head) => this.upgrade(req, socket, head));
    this.port = this.listening.port;
  }

  async close(): Promise<void> {
    for (const pod of this.pods.values()) this.killAll(pod);
    for (const client of this.wss.clients) client.terminate();
    await this.listening?.close();
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  /** A kubeconfig naming this server, with a bearer token the fake records. */
  writeKubeconfig(namespace = 'devops-agents'): string {
    const file = path.join(this.root, 'kubeconfig');
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: `http://127.0.0.1:${this.port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: { token: 'fake-token' } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace } }],
      'current-context': 'fake',
    };
    fs.writeFileSync(file, JSON.stringify(config));
    return file;
  }

  calls(method: string, pattern: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && pattern.test(r.path));
  }

  /** The host folder behind a claim (what a restore would need to bring back). */
  claimDir(name: string): string {
    return this.claims.get(name)!.dir;
  }

  /** The claim is lost with its data, as with a new cluster. */
  loseClaim(name: string): void {
    const claim = this.claims.get(name);
    if (claim) fs.rmSync(claim.dir, { recursive: true, force: true });
    this.claims.delete(name);
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Audit-Id': `fake-${this.requests.length}` }).end(text);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url!, 'http://k8s');
    const r: RecordedRequest = {
      method: req.method!,
      path: url.pathname,
      query: url.searchParams,
      body: raw.length ? JSON.parse(raw.toString('utf8')) : undefined,
      authorization: req.headers.authorization,
    };
    this.requests.push(r);
    res.once('finish', () => (r.status = res.statusCode));
    let m: RegExpExecArray | null;
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/.exec(r.path))) return this.podCall(r, m[1]!, m[2], res);
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/persistentvolumeclaims(?:\/([^/]+))?$/.exec(r.path))) return this.claimCall(r, m[1]!, m[2], res);
    if ((m = /^\/apis\/networking\.k8s\.io\/v1\/namespaces\/([^/]+)\/networkpolicies$/.exec(r.path)) && r.method === 'POST') {
      const body = r.body as { metadata: { name: string } };
      if (this.networkPolicies.has(body.metadata.name)) return this.json(res, 409, statusOf(409, 'networkpolicies.networking.k8s.io', body.metadata.name));
      this.networkPolicies.set(body.metadata.name, body);
      return this.json(res, 201, { ...body, metadata: { ...body.metadata, uid: this.uid(), resourceVersion: '1', generation: 1 } });
    }
    this.json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
  }

  private uid(): string {
    return `4c1f0e9b-6d2a-4f7e-9b1c-${String(this.nextUid++).padStart(12, '0')}`;
  }

  private podJson(pod: Pod): Record<string, unknown> {
    let status: Record<string, unknown> = fixture(pod.phase === 'Running' ? 'pod-status-running' : 'pod-status-pending');
    if (pod.initFailure) {
      const pending = fixture<{ initContainerStatuses: Array<Record<string, unknown>> }>('pod-status-pending');
      pending.initContainerStatuses[0]!.state = { terminated: { exitCode: pod.initFailure.exitCode, reason: 'Error', message: pod.initFailure.message } };
      status = pending;
    }
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      ...pod.manifest,
      metadata: {
        ...pod.manifest.metadata,
        uid: pod.uid,
        resourceVersion: String(1000 + pod.reads),
        creationTimestamp: pod.created,
        ...(pod.deleted ? { deletionTimestamp: pod.deleted, deletionGracePeriodSeconds: 5 } : {}),
      },
      spec: { ...pod.manifest.spec, nodeName: 'kind-control-plane', serviceAccountName: 'default', schedulerName: 'default-scheduler' },
      status,
    };
  }

  private async podCall(r: RecordedRequest, namespace: string, name: string | undefined, res: http.ServerResponse): Promise<void> {
    if (r.method === 'POST' && !name) {
      const manifest = r.body as PodManifest;
      const key = `${namespace}/${manifest.metadata.name}`;
      if (this.pods.has(key)) return this.json(res, 409, statusOf(409, 'pods', manifest.metadata.name));
      const pod: Pod = {
        manifest,
        uid: this.uid(),
        created: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        reads: 0,
        phase: 'Pending',
        initFailure: null,
        deleted: null,
        emptyDirs: new Map(),
        processes: new Set(),
      };
      this.pods.set(key, pod);
      return this.json(res, 201, this.podJson(pod));
    }
    const key = `${namespace}/${name}`;
    const pod = this.pods.get(key);
    if (!pod || (r.method === 'GET' && this.hideOnce.delete(name!))) return this.json(res, 404, statusOf(404, 'pods', name ?? ''));
    if (r.method === 'GET') {
      if (pod.deleted) {
        // Terminating for one read, then gone.
        const answer = this.podJson(pod);
        this.pods.delete(key);
        return this.json(res, 200, answer);
      }
      pod.reads++;
      if (pod.phase === 'Pending' && !pod.initFailure && pod.reads > this.pendingReads) await this.startPod(pod);
      return this.json(res, 200, this.podJson(pod));
    }
    if (r.method === 'DELETE') {
      pod.deleted = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      this.killAll(pod);
      for (const dir of pod.emptyDirs.values()) fs.rmSync(dir, { recursive: true, force: true });
      return this.json(res, 200, this.podJson(pod));
    }
    this.json(res, 405, { kind: 'Status', status: 'Failure', code: 405 });
  }

  private claimCall(r: RecordedRequest, namespace: string, name: string | undefined, res: http.ServerResponse): void {
    if (r.method === 'POST' && !name) {
      const manifest = r.body as Claim['manifest'];
      const claimName = manifest.metadata.name;
      if (this.claims.has(claimName)) return this.json(res, 409, statusOf(409, 'persistentvolumeclaims', claimName));
      // A new filesystem's root, as a block volume has it: lost+found, owned by root.
      const dir = fs.mkdtempSync(path.join(this.root, 'pvc-'));
      fs.mkdirSync(path.join(dir, 'lost+found'), { mode: 0o700 });
      const claim = { manifest, dir, uid: this.uid() };
      this.claims.set(claimName, claim);
      return this.json(res, 201, { ...manifest, metadata: { ...manifest.metadata, namespace, uid: claim.uid }, status: { phase: 'Pending' } });
    }
    const claim = name ? this.claims.get(name) : undefined;
    if (!claim || (r.method === 'GET' && this.hideOnce.delete(name!))) return this.json(res, 404, statusOf(404, 'persistentvolumeclaims', name ?? ''));
    if (r.method === 'GET') {
      return this.json(res, 200, { ...claim.manifest, metadata: { ...claim.manifest.metadata, namespace, uid: claim.uid }, status: fixture('pvc-status-bound') });
    }
    this.json(res, 405, { kind: 'Status', status: 'Failure', code: 405 });
  }

  /** The kubelet's part: emptyDirs, then each init container to completion; Running if they all succeed. */
  private async startPod(pod: Pod): Promise<void> {
    for (const volume of pod.manifest.spec.volumes) {
      if (volume.emptyDir) pod.emptyDirs.set(volume.name, fs.mkdtempSync(path.join(this.root, `${volume.name}-`)));
    }
    for (const init of pod.manifest.spec.initContainers ?? []) {
      if (this.failCommands?.test((init.command ?? []).join(' '))) {
        pod.initFailure = { exitCode: 2, message: 'refused by the test' };
        return;
      }
      const child = spawn('bwrap', [...this.bwrapArgs(pod, init), ...(init.command ?? [])], { env: this.envOf(init), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number>((resolve) => child.once('close', (c) => resolve(c ?? 137)));
      if (code !== 0) {
        pod.initFailure = { exitCode: code, message: stderr.trim() };
        return;
      }
    }
    pod.phase = 'Running';
  }

  private killAll(pod: Pod): void {
    for (const p of pod.processes) p.kill();
    pod.processes.clear();
  }

  private envOf(container: ContainerSpec): Record<string, string> {
    return Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
  }

  /** bubblewrap arguments giving a container of the pod its view: volumes where the spec mounts them. */
  private bwrapArgs(pod: Pod, container: ContainerSpec): string[] {
    const uid = container.securityContext?.runAsUser ?? pod.manifest.spec.securityContext?.runAsUser ?? 0;
    const gid = container.securityContext?.runAsGroup ?? pod.manifest.spec.securityContext?.runAsGroup ?? 0;
    const args = ['--unshare-user', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--uid', String(uid), '--gid', String(gid)];
    args.push('--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc', '--bind', '/proc', '/proc', '--dev', '/dev');
    for (const link of ['bin', 'lib', 'lib32', 'lib64', 'sbin']) {
      try {
        args.push('--symlink', fs.readlinkSync(`/${link}`), `/${link}`);
      } catch {
        if (fs.existsSync(`/${link}`)) args.push('--ro-bind', `/${link}`, `/${link}`);
      }
    }
    const mounts = [...(container.volumeMounts ?? [])].sort((a, b) => a.mountPath.length - b.mountPath.length);
    for (const mount of mounts) {
      const volume = pod.manifest.spec.volumes.find((v) => v.name === mount.name)!;
      let host = volume.persistentVolumeClaim ? this.claims.get(volume.persistentVolumeClaim.claimName)!.dir : pod.emptyDirs.get(volume.name)!;
      if (mount.subPath) {
        host = path.join(host, mount.subPath);
        fs.mkdirSync(host, { recursive: true });
      }
      args.push('--bind', host, mount.mountPath);
    }
    if (container.securityContext?.readOnlyRootFilesystem) args.push('--remount-ro', '/');
    if (container.workingDir) args.push('--chdir', container.workingDir);
    args.push('--');
    return args;
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url!, 'http://k8s');
    this.requests.push({ method: 'GET', path: url.pathname, query: url.searchParams, body: undefined, authorization: req.headers.authorization });
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    const pod = m ? this.pods.get(`${m[1]}/${m[2]}`) : undefined;
    const refuse = (code: number, status: unknown): void => {
      const text = JSON.stringify(status);
      socket.end(`HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    };
    if (!m || !pod || pod.deleted) return refuse(404, statusOf(404, 'pods', m?.[2] ?? ''));
    const containerName = url.searchParams.get('container') ?? pod.manifest.spec.containers[0]!.name;
    const container = pod.manifest.spec.containers.find((c) => c.name === containerName);
    if (pod.phase !== 'Running' || !container) {
      return refuse(400, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `container ${containerName} is not valid for pod ${m[2]}`, reason: 'BadRequest', code: 400 });
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const exec: RecordedExec = {
        pod: m[2]!,
        container: containerName,
        command: url.searchParams.getAll('command'),
        tty: url.searchParams.get('tty') === 'true',
        stdin: url.searchParams.get('stdin') === 'true',
        protocol: ws.protocol,
        resizes: [],
      };
      this.execs.push(exec);
      this.runExec(pod, container, exec, ws);
    });
  }

  private runExec(pod: Pod, container: ContainerSpec, exec: RecordedExec, ws: WebSocket): void {
    const send = (channel: number, data: Buffer | string): void => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), Buffer.isBuffer(data) ? data : Buffer.from(data)]));
    };
    const finish = (code: number): void => {
      send(3, JSON.stringify(code === 0 ? fixture('exec-status-success') : this.exitStatus(exec.command, code)));
      ws.close(1000);
    };
    // The API server's first frame: an empty one on stdout, telling the client the streams are up.
    send(1, Buffer.alloc(0));
    if (this.failCommands?.test(exec.command.join(' '))) {
      send(2, 'refused by the test\n');
      return finish(2);
    }
    const argv = [...this.bwrapArgs(pod, container), ...exec.command];
    if (exec.tty) {
      const term = pty.spawn('bwrap', argv, { name: 'xterm', cols: 80, rows: 24, env: this.envOf(container) });
      const entry = { kill: () => term.kill('SIGKILL') };
      pod.processes.add(entry);
      term.onData((data) => send(1, data));
      term.onExit(({ exitCode, signal }) => {
        pod.processes.delete(entry);
        finish(signal ? 128 + signal : exitCode);
      });
      ws.on('message', (data: Buffer) => {
        if (data[0] === 0) term.write(data.subarray(1).toString('utf8'));
        if (data[0] === 4) {
          const size = JSON.parse(data.subarray(1).toString('utf8')) as Record<string, number>;
          const lower = Object.fromEntries(Object.entries(size).map(([k, v]) => [k.toLowerCase(), v]));
          exec.resizes.push({ width: lower.width!, height: lower.height! });
          term.resize(lower.width!, lower.height!);
        }
      });
      return;
    }
    const child: ChildProcess = spawn('bwrap', argv, { env: this.envOf(container), stdio: [exec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const entry = { kill: () => child.kill('SIGKILL') };
    pod.processes.add(entry);
    child.stdout!.on('data', (d: Buffer) => send(1, d));
    child.stderr!.on('data', (d: Buffer) => send(2, d));
    child.stdin?.on('error', () => undefined);
    child.once('close', (code, signal) => {
      pod.processes.delete(entry);
      finish(code ?? 128 + (SIGNALS[signal ?? 'SIGKILL'] ?? 9));
    });
    ws.on('message', (data: Buffer) => {
      if (data[0] === 0) child.stdin?.write(data.subarray(1));
      if (data[0] === 255 && data[1] === 0) child.stdin?.end();
    });
    // A dropped connection closes the command's stdin; the command itself goes on, as in a pod.
    ws.on('close', () => child.stdin?.end());
  }

  private exitStatus(command: string[], code: number): Record<string, unknown> {
    const status = fixture<{ message: string; details: { causes: Array<{ reason: string; message: string }> } }>('exec-status-exit-code');
    return {
      ...status,
      message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
      details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
    };
  }
}
