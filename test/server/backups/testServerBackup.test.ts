import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { backupPaths, backupSources, installedPaths } from '../../../src/server/agents/offline/backupScripts';
import { backupStep } from '../../../src/server/agents/offline/backupSteps';
import { connectCommands, PIN_HOST_KEY, SSH } from '../../../src/server/agents/offline/remoteShell';
import { parseScriptResults, type ScriptResult } from '../../../src/shared/api/backups';
import { backupHost, requireInCi, sshTo as sshToHost, testServer, type TestHost } from '../helpers/testServer';

/**
 * The off-server backup against the real test server and the second SSH host `test-server:up` starts
 * (backup-host.sh): a stack of PostgreSQL (a dump) and Redis (its volume's files) in a folder of its own,
 * the plan's backup step run as the step runner runs it, then the restore drill on the server: the
 * snapshot restored into throwaway containers, tables, row counts and files checked, the live stack
 * untouched. Then the repository's data is damaged on the backup host and the drill says it failed.
 */

type Host = TestHost;
const server = testServer;
requireInCi(server, backupHost);
const sshTo = (h: Host, command: string, timeout = 300_000): string => sshToHost(h, command, timeout);

// Its own folder, compose project and backup paths: two test runs on the one test server never meet.
const DIR = `/opt/stack-backup-test-${process.pid}`;
const PROJECT = `stackbackuptest${process.pid}`;
const PATHS = backupPaths(`jest${process.pid}`);
const ROWS = 2_500;

(server && backupHost ? describe : describe.skip)('backups off the test server, proven by a restore drill', () => {
  const s = server!;
  const b = backupHost!;
  // describe.skip still runs this body: nothing here may read a backup host that is not there.
  const destinationPath = `${backupHost?.path ?? ''}/jest-${process.pid}`;
  // The stack's own repository inside the destination the person chose (`<destination>/<name>`).
  const repoPath = `${destinationPath}/${PATHS.repoName}`;
  let workspace: string;
  const services = [PRODUCTS.postgres!.services[0]!, PRODUCTS.redis!.services[0]!];
  const sources = backupSources(services);
  const inWorkspace = (command: string, env: NodeJS.ProcessEnv = process.env) => spawnSync('bash', ['-c', `set -euo pipefail\n${command}`], { cwd: workspace, env, encoding: 'utf8', timeout: 900_000 });
  const compose = (args: string): string => sshTo(s, `cd ${DIR} && docker-compose -p ${PROJECT} ${args}`);
  const reset = (): void => {
    sshTo(s, `if [ -d ${DIR} ]; then cd ${DIR} && docker-compose -p ${PROJECT} down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${DIR} ${installedPaths(PATHS).join(' ')}`);
  };

  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-backup-'));
    mkdirSync(path.join(workspace, 'ssh-keys'));
    writeFileSync(path.join(workspace, 'ssh-keys/id'), readFileSync(s.private_key_file, 'utf8'), { mode: 0o600 });
    const connect = inWorkspace([...connectCommands({ user: s.user, host: s.host, port: s.port }, 'ssh-keys/id'), PIN_HOST_KEY].join('\n'));
    expect(connect.status).toBe(0);
    reset();
    // The catalogue's own services, their environment filled in, nothing published.
    const file = {
      services: Object.fromEntries(
        services.map((x) => [x.name, { image: x.image, ...(x.command ? { command: x.command } : {}), environment: x.environment ?? {}, volumes: x.volumes }]),
      ),
      volumes: Object.fromEntries(services.flatMap((x) => x.volumes ?? []).map((v) => [v.split(':')[0], {}])),
    };
    // JSON is YAML that Compose v1's YAML 1.1 reader takes as written (`yes` stays a string).
    const yaml = JSON.stringify(file, null, 1).replace(/\$\{(POSTGRES_PASSWORD|REDIS_PASSWORD)\}/g, (_, n: string) => (n === 'POSTGRES_PASSWORD' ? 'jest-postgres' : 'jest-redis'));
    sshTo(s, `sudo mkdir -p ${DIR} && sudo chown $(id -u) ${DIR} && cat > ${DIR}/docker-compose.yml <<'EOF'\n${yaml}\nEOF\ncd ${DIR} && docker-compose -p ${PROJECT} up -d --quiet-pull 2>&1`);
    // Data: a table of rows in PostgreSQL, files in Redis's volume.
    sshTo(s, `cd ${DIR} && for i in $(seq 1 60); do docker-compose -p ${PROJECT} exec -T postgres pg_isready -q -h 127.0.0.1 && break; sleep 1; done`);
    compose(`exec -T postgres psql -v ON_ERROR_STOP=1 -U app -d app -qc "create table notes (id serial primary key, body text); insert into notes (body) select 'note ' || g from generate_series(1, ${ROWS}) g; create table empty_one (id int);"`);
    compose(`exec -T redis sh -c 'echo one > /data/a.txt && mkdir -p /data/sub && echo two > /data/sub/b.txt'`);
  }, 300_000);

  afterAll(() => {
    reset();
    sshTo(b, `rm -rf ${destinationPath}`);
    rmSync(workspace, { recursive: true, force: true });
  });

  const drill = (): { status: number | null; results: ScriptResult[]; output: string } => {
    const r = inWorkspace(`${SSH} 'sudo ${PATHS.drillScript}'`);
    return { status: r.status, results: parseScriptResults(r.stdout), output: r.stdout + r.stderr };
  };

  it('backs the stack up to the backup host, encrypted, and the drill restores and checks it without touching the live stack', () => {
    const step = backupStep(sources, { dir: DIR, project: PROJECT, backup: PATHS }, { schedule: '30 3 * * *', keepDays: 14, destination: `sftp://${b.user}@${b.host}:${b.port}/${destinationPath}` });
    const env = {
      ...process.env,
      BACKUP_PASSWORD: 'jest-restic-password',
      BACKUP_SSH_KEY: readFileSync(b.private_key_file, 'utf8'),
    };
    const ran = inWorkspace(step.commands.join('\n'), env);
    expect({ status: ran.status, output: ran.status === 0 ? '' : ran.stdout + ran.stderr }).toEqual({ status: 0, output: '' });
    expect(ran.stdout + ran.stderr).not.toContain('jest-restic-password');
    const [backup] = parseScriptResults(ran.stdout);
    expect(backup).toMatchObject({ kind: 'backup', ok: true, sources: 2, destination: `SSH host ${b.user}@${b.host} port ${b.port}, ${repoPath}` });
    expect(backup!.bytes).toBeGreaterThan(0);
    // Off the server: the repository is on the backup host, and encrypted (no row text in it).
    expect(sshTo(b, `ls ${repoPath}`).split('\n')).toEqual(expect.arrayContaining(['config', 'data', 'index', 'keys', 'snapshots']));
    expect(sshTo(b, `grep -rl 'note 1234' ${repoPath} || echo none`).trim()).toBe('none');
    // The settings are root's alone.
    expect(sshTo(s, `sudo stat -c "%a %U" ${PATHS.etc}/env ${PATHS.etc}/password ${PATHS.etc}/ssh_key`).trim().split('\n')).toEqual(['600 root', '600 root', '600 root']);

    const liveBefore = compose('ps -q').trim();
    const { status, results, output } = drill();
    expect({ status, output: status === 0 ? '' : output }).toEqual({ status: 0, output: '' });
    const result = results.find((r) => r.kind === 'drill')!;
    expect(result).toMatchObject({ ok: true, snapshot: backup!.snapshot });
    expect(result.checks?.[1]?.files).toBeGreaterThanOrEqual(2);
    expect(result.checks).toEqual([
      { what: 'postgres', ok: true, tables: 2, rows: ROWS, load_errors: 0 },
      // Redis's own files (its append-only log) beside the two written here.
      { what: 'volume redisdata', ok: true, files: expect.any(Number) },
    ]);
    // The live stack is the same containers, and the drill left nothing behind.
    expect(compose('ps -q').trim()).toBe(liveBefore);
    expect(sshTo(s, `docker ps -aq --filter label=com.docker.compose.project=${PROJECT}-drill; docker network ls -q --filter name=${PROJECT}-drill; sudo ls ${PATHS.state} | grep '^drill\\.' || true`).trim()).toBe('');
  }, 900_000);

  it('says in words that a drill failed when the backup host lost the data', () => {
    sshTo(b, `find ${repoPath}/data -type f | head -n 3 | xargs rm -f`);
    const { status, results, output } = drill();
    expect(status).not.toBe(0);
    const result = results.find((r) => r.kind === 'drill')!;
    if (!result) throw new Error(`no drill result in:\n${output}`);
    expect(result.ok).toBe(false);
    expect(result.step).toMatch(/check the repository|restore the latest snapshot/);
    expect(result.detail).toBeTruthy();
    expect(sshTo(s, `docker ps -aq --filter label=com.docker.compose.project=${PROJECT}-drill`).trim()).toBe('');
  }, 600_000);
});
