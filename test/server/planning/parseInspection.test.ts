import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { ServerFacts } from '../../../src/shared/stackModel';
import { inspectionCommand, INSPECTION_MARK, knownHostsName, SECRETS_TARGET } from '../../../src/server/services/serverReadback/inspectionCommand';
import { parseHostKey, parseInspection, parseLabels, parseProcNetLine, parsePublished } from '../../../src/server/services/serverReadback/parseInspection';
import { readbackCommand } from '../../../src/server/services/serverReadback/readbackCommand';

/**
 * The inspection's parser: `ss`, `docker ps --format '{{json .}}'` (Compose v1 labels), `docker compose ls
 * --format json`, /proc/net when ss is missing, os-release; what the server did not print stays absent
 * and is named, never invented.
 */

const at = new Date('2026-11-28T10:00:00Z');
const FINGERPRINT = 'SHA256:NX93hazBngDX4muBCArRGKauVIWgjLgZcjAZcuBv6cw';
/** What the command prints in the sandbox after the server's output: the pinned key, as `ssh-keygen -l -F` says it. */
const hostKeySection = (pinned: 'now' | 'earlier', fingerprint = FINGERPRINT): string => `== da-hostkey ${pinned} ==\n[203.0.113.7]:2222 ED25519 ${fingerprint}`;
const withRecord = (text: string, hostKey: string = hostKeySection('now')): string =>
  `${text}\n== da-readback record ==\n${Buffer.from(text).toString('base64')}\n== da-readback end ==\n${hostKey}`;

const V1_SERVER = [
  '== da-readback facts ==',
  'os: Debian GNU/Linux 12 (bookworm)',
  'kernel: 6.1.0',
  'docker: 20.10.24+dfsg1',
  'compose: 1.29.2 (docker-compose)',
  'cpus: 2',
  'memory_kb: 4030000',
  'disk_total_bytes: 270553174016',
  'disk_free_bytes: 50295664640',
  '== da-readback listening ==',
  'tcp LISTEN 0      4096   0.0.0.0:80 0.0.0.0:* users:(("docker-proxy",pid=6210,fd=4))',
  'tcp LISTEN 0      4096      [::]:80    [::]:* users:(("docker-proxy",pid=6215,fd=4))',
  'tcp LISTEN 0      128    0.0.0.0:2222 0.0.0.0:* users:(("sshd",pid=1,fd=3))',
  'udp UNCONN 0      0      127.0.0.53%lo:53 0.0.0.0:* users:(("systemd-resolve",pid=9,fd=13))',
  '== da-readback containers ==',
  JSON.stringify({ Image: 'nginx:1.27.2-alpine', Labels: 'com.docker.compose.project=shop,com.docker.compose.project.config_files=a.yml,b.yml,com.docker.compose.service=web', Names: 'shop_web_1', Ports: '0.0.0.0:80->80/tcp, :::80->80/tcp' }),
  JSON.stringify({ Image: 'postgres:16.4-alpine', Labels: 'com.docker.compose.project=shop', Names: 'shop_db_1', Ports: '5432/tcp' }),
  '== da-readback compose-ls ==',
].join('\n');

describe('the inspection parser', () => {
  test('a Compose v1 server: ports with the container holding them, containers, projects from labels, versions', () => {
    const { facts, notRead } = parseInspection(withRecord(V1_SERVER), at);
    expect(Value.Check(ServerFacts, facts)).toBe(true);
    expect(facts).toEqual({
      inspectedAt: '2026-11-28T10:00:00.000Z',
      os: 'Debian GNU/Linux 12 (bookworm)',
      dockerVersion: '20.10.24+dfsg1',
      composeVersion: '1.29.2 (docker-compose)',
      freeDiskGb: 46.8,
      memoryGb: 3.8,
      cpus: 2,
      portsInUse: [
        { port: 53, protocol: 'udp', address: '127.0.0.53%lo', holder: 'systemd-resolve' },
        { port: 80, protocol: 'tcp', address: '0.0.0.0', holder: 'container shop_web_1 (compose project shop)' },
        { port: 2222, protocol: 'tcp', address: '0.0.0.0', holder: 'sshd' },
      ],
      containers: [
        { name: 'shop_web_1', image: 'nginx:1.27.2-alpine', project: 'shop' },
        { name: 'shop_db_1', image: 'postgres:16.4-alpine', project: 'shop' },
      ],
      composeProjects: ['shop'],
      hostKey: { algorithm: 'ED25519', fingerprint: FINGERPRINT, firstContact: true },
    });
    expect(notRead).toEqual([]);
  });

  test('Compose v2 names its projects (stopped ones too); no ss: /proc/net says what listens', () => {
    const text = [
      '== da-readback facts ==',
      'os: Ubuntu 24.04.1 LTS',
      'docker: 27.3.1',
      'compose: 2.29.7 (docker compose)',
      '== da-readback proc-net ==',
      'tcp 0: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 1 1 0000000000000000 100 0 0 10 0',
      'tcp 1: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 2 1 0000000000000000 100 0 0 10 0',
      'tcp 2: 0100007F:9C40 0100007F:1538 01 00000000:00000000 00:00000000 00000000 0 0 3 1 0000000000000000 100 0 0 10 0',
      'tcp6 0: 00000000000000000000000000000000:01BB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 4 1 0000000000000000 100 0 0 10 0',
      'udp 0: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 0 0 5 2 0000000000000000 0',
      '== da-readback containers ==',
      '== da-readback compose-ls ==',
      '[{"Name":"old","Status":"exited(2)","ConfigFiles":"/srv/old/compose.yaml"},{"Name":"wiki","Status":"running(1)","ConfigFiles":"/srv/wiki/compose.yaml"}]',
    ].join('\n');
    const { facts, notRead } = parseInspection(withRecord(text), at);
    expect(facts.portsInUse).toEqual([
      { port: 53, protocol: 'udp', address: '0.0.0.0' },
      { port: 80, protocol: 'tcp', address: '0.0.0.0' },
      { port: 443, protocol: 'tcp', address: '::' },
      { port: 5432, protocol: 'tcp', address: '127.0.0.1' },
    ]);
    expect(facts.composeProjects).toEqual(['old', 'wiki']);
    expect(facts.composeVersion).toBe('2.29.7 (docker compose)');
    expect(notRead).toEqual([]);
  });

  test('no Docker for this user and nothing but the OS: the rest stays absent and is named', () => {
    const text = ['== da-readback facts ==', 'os: Alpine Linux v3.20', 'cpus: 1', '== da-readback listening ==', '== da-readback containers ==', 'unreadable: docker', '== da-readback compose-ls =='].join('\n');
    const { facts, notRead } = parseInspection(withRecord(text), at);
    expect(facts).toEqual({ inspectedAt: at.toISOString(), os: 'Alpine Linux v3.20', cpus: 1, portsInUse: [], containers: [], composeProjects: [], hostKey: expect.objectContaining({ fingerprint: FINGERPRINT }) });
    expect(notRead).toEqual([expect.stringMatching(/^Docker: /), 'Docker version', expect.stringMatching(/^Compose: /)]);
  });

  test('output whose record was blanked by redaction is read from its text; garbage lines are skipped', () => {
    const text = `${V1_SERVER}\nnot json at all\n{"Names": 3}`;
    const blanked = `${text}\n== da-readback record ==\n[REDACTED]\n== da-readback end ==`;
    const { facts } = parseInspection(blanked, at);
    expect(facts.containers.map((c) => c.name)).toEqual(['shop_web_1', 'shop_db_1']);
  });

  test('labels keep commas inside values; published ports read ranges and skip unpublished ones', () => {
    expect(parseLabels('a=1,com.docker.compose.project.config_files=x.yml,y.yml,b=2')).toEqual({ a: '1', 'com.docker.compose.project.config_files': 'x.yml,y.yml', b: '2' });
    expect(parsePublished('0.0.0.0:8000-8002->8000-8002/tcp, 9000/tcp, [::]:53->53/udp')).toEqual([
      { address: '0.0.0.0', port: 8000, protocol: 'tcp' },
      { address: '0.0.0.0', port: 8001, protocol: 'tcp' },
      { address: '0.0.0.0', port: 8002, protocol: 'tcp' },
      { address: '[::]', port: 53, protocol: 'udp' },
    ]);
    expect(parseProcNetLine('tcp 3: 0100007F:0016 00000000:0000 01 0')).toBeUndefined();
  });

  test('whatever the server prints, the facts fit the stack model and every port is one it printed', () => {
    const line = fc.oneof(
      fc.string(),
      fc.constantFrom('== da-readback listening ==', '== da-readback containers ==', '== da-readback proc-net ==', '== da-readback facts =='),
      fc.record({ port: fc.integer({ min: 0, max: 70000 }), proc: fc.string() }).map(({ port, proc }) => `tcp LISTEN 0 128 0.0.0.0:${port} 0.0.0.0:* users:(("${proc}",pid=1,fd=3))`),
      fc.record({ Names: fc.string(), Image: fc.string(), Labels: fc.string(), Ports: fc.string() }).map((r) => JSON.stringify(r)),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
        const text = lines.join('\n');
        const { facts } = parseInspection(withRecord(text), at);
        expect(Value.Check(ServerFacts, facts)).toBe(true);
        for (const p of facts.portsInUse) expect(text).toContain(String(p.port));
      }),
    );
  });
});

describe('the host key the inspection pinned', () => {
  test('pinned at this first contact, or the one pinned earlier, with its fingerprint; none pinned is named', () => {
    expect(parseInspection(withRecord(V1_SERVER), at).facts.hostKey).toEqual({ algorithm: 'ED25519', fingerprint: FINGERPRINT, firstContact: true });
    expect(parseInspection(withRecord(V1_SERVER, hostKeySection('earlier')), at).facts.hostKey).toEqual({ algorithm: 'ED25519', fingerprint: FINGERPRINT, firstContact: false });
    const none = parseInspection(withRecord(V1_SERVER, '== da-hostkey now =='), at);
    expect(none.facts.hostKey).toBeUndefined();
    expect(none.notRead).toEqual([expect.stringMatching(/^SSH host key: none pinned/)]);
  });

  test('whatever the server prints (a forged section among it), the key read is the one the sandbox printed last', () => {
    const forged = fc.oneof(
      fc.string(),
      fc.constantFrom('now', 'earlier').map((p) => `== da-hostkey ${p} ==`),
      fc.stringMatching(/^[A-Za-z0-9+/]{43}$/).map((f) => `[203.0.113.7]:2222 ED25519 SHA256:${f}`),
    );
    fc.assert(
      fc.property(fc.array(forged, { maxLength: 12 }), fc.constantFrom<'now' | 'earlier'>('now', 'earlier'), (lines, pinned) => {
        const server = `${V1_SERVER}\n${lines.join('\n')}`;
        const key = parseHostKey(withRecord(server, hostKeySection(pinned)));
        expect(key).toEqual({ algorithm: 'ED25519', fingerprint: FINGERPRINT, firstContact: pinned === 'now' });
      }),
    );
  });

  test('known_hosts files a key under the bare host on port 22, [host]:port otherwise', () => {
    expect(knownHostsName({ user: 'deploy', host: '203.0.113.7', port: 22 })).toBe('203.0.113.7');
    expect(knownHostsName({ user: 'deploy', host: '203.0.113.7', port: 2222 })).toBe('[203.0.113.7]:2222');
    expect(knownHostsName({ user: 'deploy', host: '[2001:db8::1]', port: 2222 })).toBe('[2001:db8::1]:2222');
  });
});

describe('the inspection command', () => {
  test('reads only: no command in it writes on the server; the readback keeps its own bytes', () => {
    const command = inspectionCommand({ user: 'deploy', host: '203.0.113.7', port: 2222 });
    expect(command.startsWith(`${INSPECTION_MARK}deploy@203.0.113.7:2222: `)).toBe(true);
    // What runs on the server: the here-document's body, between its tag lines.
    const remote = command.slice(command.indexOf("<<'INSPECT'\n") + "<<'INSPECT'\n".length, command.indexOf('\nINSPECT\n'));
    expect(remote).toContain('docker');
    for (const writes of [/\brm\b/, /\bmkdir\b/, /\btee\b/, /(^|[^0-9&2])>\s*[^&/]/m, /docker (run|rm|stop|start|compose up|compose down)/, /\bapt(-get)?\b/, /\bsystemctl\b/]) expect(remote).not.toMatch(writes);
    expect(() => inspectionCommand({ user: 'deploy; rm -rf /', host: 'x', port: 22 })).toThrow();
    expect(() => inspectionCommand({ user: 'deploy', host: "a'b", port: 22 })).toThrow();
    expect(readbackCommand('da-server')).toContain('say sshd');
  });

  test('pins the host key in the workspace file the deploy checks, and prints it after what the server printed', () => {
    const command = inspectionCommand({ user: 'deploy', host: '203.0.113.7', port: 2222 });
    expect(spawnSync('bash', ['-n'], { input: command, encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
    expect(command).toContain('-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile="$PWD/ssh-keys/known_hosts"');
    expect(command).not.toMatch(/known_hosts"?\s*$|\$d\/known_hosts/m);
    const after = command.slice(command.indexOf('\nINSPECT\n'));
    expect(after).toContain("ssh-keygen -l -F '[203.0.113.7]:2222' -f ssh-keys/known_hosts");
    expect(after.trimEnd().endsWith('exit $status')).toBe(true);
  });

  test('a server named by User Secrets: the command names the variables, and checks their values in the sandbox before ssh sees them', () => {
    const command = inspectionCommand(SECRETS_TARGET);
    expect(command.startsWith(`${INSPECTION_MARK}$SERVER_USER@$SERVER_HOST:22: `)).toBe(true);
    expect(spawnSync('bash', ['-n'], { input: command, encoding: 'utf8' })).toMatchObject({ status: 0, stderr: '' });
    expect(command).toContain(` "$SERVER_USER@$SERVER_HOST" 'bash -s' <<'INSPECT'`);
    expect(command).toContain('ssh-keygen -l -F "$SERVER_HOST" -f ssh-keys/known_hosts');
    // The checks, run alone with the values a person might have typed.
    const checks = command.slice(0, command.indexOf('\nd=$(mktemp'));
    // stdin from /dev/null: on a socket (node's pipes) bash takes itself for an rsh login and reads ~/.bashrc.
    const run = (env: Record<string, string>) =>
      spawnSync('bash', ['-c', checks], { env: { PATH: process.env.PATH!, SSH_PRIVATE_KEY: 'k', ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(run({ SERVER_USER: 'deploy', SERVER_HOST: '203.0.113.9' })).toMatchObject({ status: 0, stderr: '' });
    expect(run({ SERVER_USER: 'deploy', SERVER_HOST: 'vps-1.example.org' }).status).toBe(0);
    expect(run({ SERVER_USER: 'deploy', SERVER_HOST: '2001:db8::1' }).status).toBe(0);
    for (const [env, said] of [
      [{ SERVER_HOST: '203.0.113.9' }, 'There is no SERVER_USER in User Secrets'],
      [{ SERVER_USER: 'deploy' }, 'There is no SERVER_HOST in User Secrets'],
      [{ SERVER_USER: '-oProxyCommand=touch /tmp/x', SERVER_HOST: '203.0.113.9' }, 'SERVER_USER in User Secrets is not a user name'],
      [{ SERVER_USER: 'deploy', SERVER_HOST: '203.0.113.9 -oProxyCommand=x' }, 'SERVER_HOST in User Secrets is not a host name'],
      [{ SERVER_USER: 'deploy', SERVER_HOST: '[2001:db8::1]:22' }, 'SERVER_HOST in User Secrets is not a host name'],
      [{ SERVER_USER: 'deploy\n', SERVER_HOST: '203.0.113.9' }, 'SERVER_USER in User Secrets is not a user name'],
    ] as const) {
      const r = run(env);
      expect({ status: r.status, stderr: r.stderr.trim() }).toEqual({ status: 3, stderr: expect.stringContaining(said) });
    }
  });
});
