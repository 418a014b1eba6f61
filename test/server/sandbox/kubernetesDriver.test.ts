import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, TOOLBOX_IMAGE } from '../../../src/server/config';
import { createSandboxDriver } from '../../../src/server/sandbox';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { connectKubernetes } from '../../../src/server/sandbox/kubernetes/connection';
import { createKubernetesDriver, type KubernetesDriverOptions } from '../../../src/server/sandbox/kubernetes/kubernetesDriver';
import { claimManifest, noNetworkPolicy, podManifest } from '../../../src/server/sandbox/kubernetes/manifests';
import { withEnv } from '../../../src/server/sandbox/kubernetes/podExec';
import { SANDBOX_ERRORS } from '../../../src/shared/constants/sandbox';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { FakeKubernetesApi, type PodManifest } from './fakeKubernetesApi';
import { waitFor } from './ptyHelpers';
import { readZip, streamToBuffer } from './zipHelpers';

const ref: SandboxRef = { projectId: 7, username: 'user_3_7' };
const WORKSPACE = '/home/user_3_7/workspace';
const POD = 'devops-agents-sandbox-7';
const CLAIM = 'devops-agents-sandbox-7-workspace';
const PODS = /^\/api\/v1\/namespaces\/devops-agents\/pods$/;
const THE_POD = new RegExp(`^/api/v1/namespaces/devops-agents/pods/${POD}$`);

interface ContainerBody {
  name: string;
  command: string[];
  securityContext: Record<string, unknown>;
  resources: { limits: Record<string, string>; requests: Record<string, string> };
  volumeMounts: Array<{ name: string; mountPath: string; subPath?: string }>;
  env: Array<{ name: string; value: string }>;
}
type PodBody = PodManifest & { spec: PodManifest['spec'] & { containers: ContainerBody[]; initContainers: ContainerBody[] } & Record<string, unknown> };

/** Whether the process whose pid FILE holds still runs (a zombie waiting for its reaper does not). */
const ALIVE = 's=$(cut -d" " -f3 "/proc/$(cat FILE)/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && echo alive || echo gone';

/** Retries an assertion until it holds (for what happens after a call has answered). */
async function eventually(assertion: () => void, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return assertion();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** Runs a command that must succeed and answers its output. */
async function sh(driver: SandboxDriver, command: string): Promise<string> {
  const result = await driver.exec(ref, command);
  if (result.exitCode !== 0) throw new Error(`${command} exited ${result.exitCode}: ${result.output}`);
  return result.output;
}

describe('kubernetes sandbox driver (against a replay of the Kubernetes API, execs run for real)', () => {
  let api: FakeKubernetesApi;
  let root: string;
  let kubeconfig: string;

  const driverWith = (overrides: Partial<KubernetesDriverOptions> = {}): SandboxDriver =>
    createKubernetesDriver({
      connect: () => connectKubernetes(kubeconfig),
      root,
      namespace: 'devops-agents',
      image: 'buildpack-deps:bookworm-scm',
      storageSize: '10Gi',
      network: true,
      memoryMb: 2048,
      cpus: 1.5,
      execTimeoutMs: 10_000,
      pollMs: 20,
      ...overrides,
    });

  beforeEach(async () => {
    api = new FakeKubernetesApi();
    await api.listen();
    kubeconfig = api.writeKubeconfig();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'k8s-driver-'));
  });

  afterEach(async () => {
    await api.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates a claim and a hardened pod: uid 1000, fsGroup, no capabilities or escalation, read-only root, limits, no token', async () => {
    const driver = driverWith();
    expect(await driver.status(ref)).toBe('NotRunning');
    await driver.initialise(ref);
    expect(await driver.status(ref)).toBe('Running');

    const claim = api.calls('POST', /\/persistentvolumeclaims$/)[0]!.body as { metadata: { name: string; labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(claim.metadata).toMatchObject({ name: CLAIM, labels: { 'devops-agents/project': '7' } });
    expect(claim.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } });

    const pod = api.calls('POST', PODS)[0]!.body as PodBody;
    expect(pod.metadata).toMatchObject({ name: POD, namespace: 'devops-agents', labels: { 'devops-agents/project': '7', 'app.kubernetes.io/name': 'devops-agents-sandbox' } });
    expect(pod.spec).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      shareProcessNamespace: true,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'RuntimeDefault' } },
    });
    expect(pod.spec).not.toHaveProperty('runtimeClassName');
    expect(pod.spec).not.toHaveProperty('hostNetwork');
    expect(pod.spec).not.toHaveProperty('hostPID');
    const hardened = {
      runAsNonRoot: true,
      runAsUser: 1000,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    };
    const [sandbox] = pod.spec.containers;
    const [init] = pod.spec.initContainers;
    expect(sandbox!.securityContext).toMatchObject(hardened);
    expect(sandbox!.securityContext.capabilities).toEqual({ drop: ['ALL'] });
    expect(init!.securityContext).toMatchObject(hardened);
    expect(sandbox!.resources.limits).toEqual({ cpu: '1500m', memory: '2048Mi' });
    expect(sandbox!.volumeMounts).toEqual([
      { name: 'home', mountPath: '/home/user_3_7' },
      { name: 'workspace', mountPath: WORKSPACE, subPath: 'workspace' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod.spec.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: CLAIM } },
      { name: 'home', emptyDir: { sizeLimit: '64Mi' } },
      { name: 'tmp', emptyDir: { sizeLimit: '512Mi' } },
    ]);
    expect(JSON.stringify(pod)).not.toMatch(/hostPath|docker\.sock|serviceAccountToken/);
    // The workspace folder of the claim, never its root (lost+found, root's), made by the non-root init container.
    expect(fs.readdirSync(api.claimDir(CLAIM)).sort()).toEqual(['lost+found', 'workspace']);

    // Pending, then Running: the driver polled; every call carried the kubeconfig's token.
    expect(api.calls('GET', THE_POD).length).toBeGreaterThanOrEqual(3);
    expect(api.requests.every((r) => r.authorization === 'Bearer fake-token')).toBe(true);
    expect(api.calls('POST', /networkpolicies$/)).toHaveLength(0);

    // No backup yet: a fresh git workspace, made inside as uid 1000, with ~/.ssh leading to ssh-keys.
    expect(await sh(driver, 'id -u; git log --format=%s; ls -A; readlink ~/.ssh')).toBe(
      `1000\nWorkspace created\n.git\n.gitignore\nansible\nssh-keys\nterraform\n${WORKSPACE}/ssh-keys\n`,
    );
    expect(api.execs.every((e) => e.protocol === 'v4.channel.k8s.io' && e.container === 'sandbox')).toBe(true);
    // The root is read-only, as the pod spec says; /tmp and the home are writable.
    expect((await driver.exec(ref, 'touch /etc/x')).exitCode).not.toBe(0);
    await sh(driver, 'touch /tmp/x ~/y');

    // Idempotent: a second initialise only reads the pod.
    const before = api.requests.length;
    await driver.initialise(ref);
    expect(api.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/namespaces/devops-agents/pods/${POD}`]);
  });

  it('sets the runtime class and storage class when configured; with networking off a deny-all policy covers the pods', async () => {
    await driverWith({ runtimeClass: 'gvisor', storageClass: 'fast-ssd', network: false, memoryMb: 0, cpus: 0 }).initialise(ref);
    const pod = api.calls('POST', PODS)[0]!.body as PodBody;
    expect(pod.spec.runtimeClassName).toBe('gvisor');
    expect(pod.spec.containers[0]!.resources.limits).toEqual({});
    expect((api.calls('POST', /persistentvolumeclaims$/)[0]!.body as { spec: Record<string, unknown> }).spec.storageClassName).toBe('fast-ssd');
    const policy = api.calls('POST', /^\/apis\/networking\.k8s\.io\/v1\/namespaces\/devops-agents\/networkpolicies$/)[0]!.body as { spec: unknown };
    expect(policy.spec).toEqual({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'devops-agents-sandbox' } }, policyTypes: ['Ingress', 'Egress'] });
  });

  it('takes 409 AlreadyExists as done when another server replica created the objects first', async () => {
    // Another replica created the policy, the claim and the pod just after this one read them.
    const settings = { namespace: 'devops-agents', namePrefix: 'devops-agents-sandbox', image: 'buildpack-deps:bookworm-scm', storageSize: '10Gi', memoryMb: 0, cpus: 0, tmpSizeMb: 64 };
    const post = (url: string, body: unknown) =>
      fetch(`http://127.0.0.1:${api.port}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/apis/networking.k8s.io/v1/namespaces/devops-agents/networkpolicies', noNetworkPolicy(settings))).status).toBe(201);
    expect((await post('/api/v1/namespaces/devops-agents/persistentvolumeclaims', claimManifest(settings, ref))).status).toBe(201);
    expect((await post('/api/v1/namespaces/devops-agents/pods', podManifest(settings, ref))).status).toBe(201);
    api.hideOnce.add(POD).add(CLAIM);

    const driver = driverWith({ network: false });
    await driver.initialise(ref);
    expect(await driver.status(ref)).toBe('Running');
    expect(api.calls('POST', /./).map((r) => r.status)).toEqual([201, 201, 201, 409, 409, 409]);
    expect(api.pods.size).toBe(1);
    expect(await sh(driver, 'git log --format=%s')).toBe('Workspace created\n');
  });

  it('streams stdout and stderr, reports the exit code from the Status, and passes the environment over stdin, not the URL', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const chunks: Array<[string, string]> = [];
    const result = await driver.exec(ref, 'printf héllo; printf "warn\\n" >&2; sleep 0.05; echo " $TOKEN wörld"; exit 3', {
      env: { TOKEN: "it's-x" },
      onOutput: (c, s) => chunks.push([s, c]),
    });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, cancelled: false });
    // stdout and stderr are separate channels: interleaved as they arrived, each whole and in order.
    expect(chunks.filter(([s]) => s === 'stdout').map(([, c]) => c).join('')).toBe("héllo it's-x wörld\n");
    expect(chunks.filter(([s]) => s === 'stderr').map(([, c]) => c).join('')).toBe('warn\n');
    expect(result.output).toBe(chunks.map(([, c]) => c).join(''));
    const exec = api.execs.at(-1)!;
    expect(exec.command.slice(0, 2)).toEqual(['bash', '-c']);
    expect(exec.command).toContain('setsid');
    expect(exec).toMatchObject({ tty: false, stdin: true });
    expect(api.requests.some((r) => decodeURIComponent(r.query.toString()).includes("it's-x"))).toBe(false);
    expect(await sh(driver, 'echo $HOME $USER')).toBe('/home/user_3_7 user_3_7\n');
    expect((await driver.exec(ref, 'true')).exitCode).toBe(0);
    expect((await driver.exec(ref, 'exit 2')).exitCode).toBe(2);
  });

  it('quotes every environment value for the stdin loader', () => {
    const { argv, stdin } = withEnv(['git', 'log'], { A: "it's", B: '$(reboot)\n`x`' });
    expect(argv.slice(0, 2)).toEqual(['bash', '-c']);
    expect(argv.slice(3)).toEqual(['env', String(stdin.length), 'git', 'log']);
    const out = execFileSync('bash', ['-c', argv[2]!, ...argv.slice(3, 5), 'bash', '-c', 'printf "%s|%s" "$A" "$B"'], { input: stdin }).toString();
    expect(out).toBe("it's|$(reboot)\n`x`");
    expect(() => withEnv(['true'], { 'A;rm': 'x' })).toThrow('Invalid environment variable name');
  });

  it('redacts secrets (and their base64 forms) from the output and every chunk, even split across frames', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const canary = 'canary-S3cr3t-value';
    const b64 = Buffer.from(canary).toString('base64');
    const chunks: string[] = [];
    const result = await driver.exec(ref, `printf 'key=canary-S'; sleep 0.1; printf '3cr3t-value\\n'; echo "b64 $(printf %s "$SECRET" | base64)" >&2`, {
      env: { SECRET: canary },
      secrets: [canary],
      onOutput: (c) => chunks.push(c),
    });
    expect(chunks.length).toBeGreaterThan(1);
    expect(result.output).not.toContain(canary);
    expect(result.output).not.toContain(b64);
    expect(result.output).toContain('[REDACTED]');
    expect(chunks.join('')).not.toContain(canary);
  });

  it('kills the command on timeout and on cancel, through its process group', async () => {
    // A limit a busy machine's first output fits within; the checks run on a driver with the usual one.
    const driver = driverWith({ execTimeoutMs: 2_000 });
    const checker = driverWith();
    await driver.initialise(ref);
    const timedOut = await driver.exec(ref, 'echo $$ > /tmp/victim; while :; do echo y; sleep 0.01; done');
    expect(timedOut).toMatchObject({ exitCode: null, timedOut: true, cancelled: false });
    expect(timedOut.output).toContain('y');
    const kills = api.execs.filter((e) => e.command.includes('kill'));
    expect(kills).toHaveLength(1);
    expect(kills[0]!.command.join(' ')).toMatch(/kill -KILL -- "-\$p"/);
    expect(await sh(checker, ALIVE.replace('FILE', '/tmp/victim'))).toBe('gone\n');

    const controller = new AbortController();
    const running = driver.exec(ref, 'echo $$ > /tmp/victim2; echo started; sleep 1000', {
      signal: controller.signal,
      timeoutMs: 10_000,
      // Cancelled once the command runs.
      onOutput: (chunk) => {
        if (chunk.includes('started')) controller.abort();
      },
    });
    expect(await running).toMatchObject({ exitCode: null, timedOut: false, cancelled: true });
    expect(await sh(checker, ALIVE.replace('FILE', '/tmp/victim2'))).toBe('gone\n');
  });

  it('backs up with tar inside the pod; a stop deletes the pod and keeps the claim; an empty claim is restored on start', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    await sh(driver, 'echo \'resource "null_resource" "x" {}\' > terraform/main.tf');
    await driver.commitStep(ref, 1, 'write main.tf');
    expect(await driver.lastBackupTime(ref)).toBeNull();
    const { lastSyncTime } = await driver.backup(ref);
    expect(await driver.lastBackupTime(ref)).toEqual(lastSyncTime);
    const backup = path.join(root, '7', 'backups', `backup-${lastSyncTime.getTime()}.tar.gz`);
    expect(fs.readdirSync(path.dirname(backup))).toEqual([path.basename(backup)]);
    expect(execFileSync('tar', ['-tzf', backup]).toString()).toContain('./terraform/main.tf');

    await driver.stop(ref);
    expect(api.calls('DELETE', THE_POD)).toHaveLength(1);
    expect(await driver.status(ref)).toBe('NotRunning');
    await expect(driver.exec(ref, 'true')).rejects.toMatchObject({ code: 'not_running' });
    await expect(driver.backup(ref)).rejects.toMatchObject({ code: 'not_running' });
    expect(api.claims.has(CLAIM)).toBe(true);

    // The claim kept the workspace: nothing to restore.
    await driver.start(ref);
    expect(api.calls('POST', /persistentvolumeclaims$/)).toHaveLength(1);
    expect(api.execs.some((e) => e.command.includes('restore'))).toBe(false);
    expect(await sh(driver, 'cat terraform/main.tf')).toBe('resource "null_resource" "x" {}\n');

    // A claim lost with its cluster: a new one, and the newest backup restored into it, history and all.
    await driver.stop(ref);
    api.loseClaim(CLAIM);
    await driver.start(ref);
    expect(api.calls('POST', /persistentvolumeclaims$/)).toHaveLength(2);
    expect(api.execs.filter((e) => e.command.includes('restore'))).toHaveLength(1);
    expect(await sh(driver, 'cat terraform/main.tf; git log --format=%s')).toBe('resource "null_resource" "x" {}\nStep 1: write main.tf\nWorkspace created\n');
    expect(await sh(driver, 'stat -c %u terraform/main.tf')).toBe('1000\n');
  });

  it('zips the workspace and a folder, refusing a folder that leads out', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    await sh(driver, 'echo "# hi" > README.md; echo x > terraform/main.tf; ln -s /etc escape');
    const zip = await readZip(await streamToBuffer(await driver.zipWorkspace(ref)));
    expect(zip.get('README.md')!.data.toString()).toBe('# hi\n');
    expect(zip.get('terraform/main.tf')!.data.toString()).toBe('x\n');
    expect(zip.has('.gitignore')).toBe(true);

    const folder = await readZip(await streamToBuffer(await driver.zipFolder(ref, 'terraform')));
    expect([...folder.keys()].filter((k) => !k.endsWith('/'))).toEqual(['main.tf']);
    await expect(driver.zipFolder(ref, 'escape')).rejects.toMatchObject({ code: 'outside_workspace' });
    await expect(driver.zipFolder(ref, 'missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('commits each step and reads the history inside the pod', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    await sh(driver, 'echo 1 > a');
    const sha = await driver.commitStep(ref, 2, 'terraform init\nterraform plan');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const nothing = await driver.commitStep(ref, 3, 'true');
    const commits = await driver.history(ref);
    expect(commits.map((c) => [c.step_number, c.message, c.command])).toEqual([
      [3, 'Step 3: true', 'true'],
      [2, 'Step 2: terraform init', 'terraform init\nterraform plan'],
      [null, 'Workspace created', null],
    ]);
    expect(commits[1]!.sha).toBe(sha);
    expect(commits[0]!.sha).toBe(nothing);
  });

  it('opens a shell over a tty exec: input, resize on channel 4, kill', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const secret = "tty-s3cr3t'v $x";
    const shell = driver.shell(ref, { cols: 100, rows: 30, env: { DB_PASSWORD: secret } });
    shell.write('echo typed-$((6*7)) "[$DB_PASSWORD]" $TERM; ls -A /tmp | grep -c tty-env\r');
    expect(await waitFor(shell, /xterm-256color\r\n\d/)).toContain(`typed-42 [${secret}] xterm-256color\r\n0`);
    const exec = api.execs.at(-1)!;
    expect(exec).toMatchObject({ tty: true, stdin: true });
    expect(exec.command.join(' ')).toContain('exec bash -l');
    // The environment went through a 0600 file the shell removed: on no exec's URL or command line.
    expect(api.requests.some((r) => decodeURIComponent(r.query.toString()).includes('tty-s3cr3t'))).toBe(false);
    expect(api.execs.some((e) => e.command.join(' ').includes('tty-s3cr3t'))).toBe(false);
    expect(exec.resizes[0]).toEqual({ width: 100, height: 30 });
    shell.resize(120, 40);
    // The API server has the new size before the next line is typed (under load, a line typed at once
    // was once read by the shell before the resize reached the tty).
    await eventually(() => expect(exec.resizes.at(-1)).toEqual({ width: 120, height: 40 }));
    shell.write('stty size\r');
    expect(await waitFor(shell, /40 120/)).toContain('40 120');

    const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => shell.onExit(resolve));
    shell.kill();
    expect(await exited).toEqual({ exitCode: 0, signal: 9 });
    await eventually(() => expect(api.execs.some((e) => e.command.includes('kill'))).toBe(true));

    // A shell that exits by itself reports the exit code from the Status.
    const second = driver.shell(ref, { cols: 80, rows: 24 });
    const done = new Promise<{ exitCode: number; signal?: number }>((resolve) => second.onExit(resolve));
    await waitFor(second, /\$ $/);
    second.write('exit 4\r');
    expect(await done).toEqual({ exitCode: 4 });
  });

  it('reports a pod that can never run and deletes it', async () => {
    api.failCommands = /mkdir -p \/volume\/workspace/;
    await expect(driverWith().initialise(ref)).rejects.toThrow('The sandbox pod cannot run: workspace exited with 2: refused by the test');
    expect(api.calls('DELETE', THE_POD)).toHaveLength(1);
    api.failCommands = null;
    // The next start makes a new pod.
    await driverWith().start(ref);
    expect(api.calls('POST', PODS)).toHaveLength(2);
  });

  it('is chosen by SANDBOX_DRIVER=kubernetes with its settings from the environment, without loading the client', async () => {
    const config = loadConfig({
      DATA_DIR: '/srv/da',
      SANDBOX_DRIVER: 'kubernetes',
      SANDBOX_KUBECONFIG: '/etc/da/kubeconfig',
      SANDBOX_KUBERNETES_RUNTIME_CLASS: 'gvisor',
      SANDBOX_KUBERNETES_STORAGE_SIZE: '20Gi',
    });
    expect(config.sandbox.kubernetes).toEqual({
      kubeconfig: '/etc/da/kubeconfig',
      namespace: 'devops-agents',
      image: TOOLBOX_IMAGE,
      runtimeClass: 'gvisor',
      storageClass: undefined,
      storageSize: '20Gi',
      cpus: 2,
    });
    expect((await createSandboxDriver(config.sandbox)).kind).toBe('kubernetes');
    expect(loadConfig({}).sandbox.kubernetes).toBeUndefined();
    for (const [name, value] of [
      ['SANDBOX_KUBERNETES_NAMESPACE', 'Bad_Namespace'],
      ['SANDBOX_KUBERNETES_RUNTIME_CLASS', 'runsc; rm -rf /'],
      ['SANDBOX_KUBERNETES_STORAGE_SIZE', '10GB'],
      ['SANDBOX_KUBERNETES_CPUS', '-1'],
    ]) {
      expect(() => loadConfig({ SANDBOX_DRIVER: 'kubernetes', [name!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ SANDBOX_DRIVER: 'kubernetes', [name!]: value! })).toThrow(name!);
    }
  });

  describe('through the routes (SANDBOX_DRIVER=kubernetes)', () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let dataDir: string;

    beforeEach(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-k8s-routes-'));
      database = await openTestDatabase('pglite');
      api.pendingReads = 0;
      app = await buildTestApp(database, { env: { DATA_DIR: dataDir, SANDBOX_DRIVER: 'kubernetes', SANDBOX_KUBECONFIG: kubeconfig } });
    });
    afterEach(async () => {
      await app.close();
      await database.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('stops only after a good backup: a failed backup aborts the stop with the spec message and the pod stays', async () => {
      const alice = await signIn(app, 'alice');
      const call = (method: 'GET' | 'POST', url: string, payload?: object) => app.inject({ method, url, headers: alice.headers, ...(payload ? { payload } : {}) });
      const projectId = (await call('POST', '/api/projects', { name: 'On Kubernetes' })).json().id as number;
      expect((await call('POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
      expect((await call('GET', `/api/sandboxes/${projectId}/status`)).json()).toMatchObject({ container_status: 'Running', last_sync_time: null });

      api.failCommands = /tar -czf/;
      const refused = await call('POST', `/api/sandboxes/${projectId}/stop`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().detail).toContain(SANDBOX_ERRORS.stop);
      expect(api.calls('DELETE', /\/pods\//)).toHaveLength(0);
      expect((await call('GET', `/api/sandboxes/${projectId}/status`)).json()).toMatchObject({ container_status: 'Running', last_sync_time: null });
      expect(fs.readdirSync(path.join(dataDir, 'sandboxes', String(projectId), 'backups'))).toEqual([]);

      api.failCommands = null;
      const stopped = await call('POST', `/api/sandboxes/${projectId}/stop`);
      expect(stopped.statusCode).toBe(200);
      expect(stopped.json().container_status).toBe('NotRunning');
      expect(api.calls('DELETE', /\/pods\//)).toHaveLength(1);
      expect((await call('GET', `/api/sandboxes/${projectId}/status`)).json().last_sync_time).toEqual(expect.any(String));
    });
  });
});
