import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PRODUCTS } from '../../src/server/agents/offline/knowledge';
import { backupPaths, backupSources, installedPaths } from '../../src/server/agents/offline/backupScripts';
import { backupStep } from '../../src/server/agents/offline/backupSteps';
import { connectCommands, PIN_HOST_KEY, SSH } from '../../src/server/agents/offline/remoteShell';
import { parseScriptResults } from '../../src/shared/api/backups';

/**
 * Backup and restore-drill times of a PostgreSQL database of about 1 GB on the test server, to the
 * backup host `test-server:up` starts: `npx tsx test/bench/backupDrill.ts` (BENCH_BACKUP_MB sets the
 * size). The stack is the catalogue's own PostgreSQL service in a folder of its own; the times are the
 * scripts' own (their result lines) and the wall clock of each command. Everything it made on the
 * server and the backup host is removed at the end, whatever happened.
 */

interface Host { host: string; port: number; user: string; private_key_file: string; path?: string }
const STATE = process.env.DA_TEST_SERVER_DIR ?? path.resolve('.test-server');
const read = (f: string): Host => JSON.parse(readFileSync(path.join(STATE, f), 'utf8')) as Host;
const server = read('server.json');
const backupHost = read('backup.json');
const MB = Number(process.env.BENCH_BACKUP_MB ?? 1024);
const DIR = `/opt/stack-backup-bench-${process.pid}`;
const PROJECT = `stackbackupbench${process.pid}`;
const PATHS = backupPaths(`bench${process.pid}`);
const repoPath = `${backupHost.path}/bench-${process.pid}`;

const sshTo = (h: Host, command: string): string =>
  execFileSync('ssh', ['-i', h.private_key_file, '-p', String(h.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${h.user}@${h.host}`, command], { encoding: 'utf8', timeout: 3_600_000, maxBuffer: 64 * 1024 * 1024 });
const psql = (sql: string): string => sshTo(server, `cd ${DIR} && docker-compose -p ${PROJECT} exec -T postgres psql -v ON_ERROR_STOP=1 -U app -d app -Atc ${JSON.stringify(sql)}`);
const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

function reset(): void {
  sshTo(server, `if [ -d ${DIR} ]; then cd ${DIR} && docker-compose -p ${PROJECT} down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${DIR} ${installedPaths(PATHS).join(' ')}`);
  sshTo(backupHost, `rm -rf ${repoPath}`);
}

const workspace = mkdtempSync(path.join(tmpdir(), 'da-backup-bench-'));
const inWorkspace = (command: string, env: NodeJS.ProcessEnv = process.env) => spawnSync('bash', ['-c', `set -euo pipefail\n${command}`], { cwd: workspace, env, encoding: 'utf8', timeout: 3_600_000, maxBuffer: 64 * 1024 * 1024 });
try {
  mkdirSync(path.join(workspace, 'ssh-keys'));
  writeFileSync(path.join(workspace, 'ssh-keys/id'), readFileSync(server.private_key_file, 'utf8'), { mode: 0o600 });
  const connect = inWorkspace([...connectCommands({ user: server.user, host: server.host, port: server.port }, 'ssh-keys/id'), PIN_HOST_KEY].join('\n'));
  if (connect.status !== 0) throw new Error(connect.stderr);
  reset();
  const pg = PRODUCTS.postgres!.services[0]!;
  const file = { services: { postgres: { image: pg.image, environment: { ...pg.environment, POSTGRES_PASSWORD: 'bench' }, volumes: pg.volumes } }, volumes: { pgdata: {} } };
  sshTo(server, `sudo mkdir -p ${DIR} && sudo chown $(id -u) ${DIR} && cat > ${DIR}/docker-compose.yml <<'EOF'\n${JSON.stringify(file, null, 1)}\nEOF\ncd ${DIR} && docker-compose -p ${PROJECT} up -d --quiet-pull 2>&1 && for i in $(seq 1 60); do docker-compose -p ${PROJECT} exec -T postgres pg_isready -q -h 127.0.0.1 && break; sleep 1; done`);
  // Rows of 31 random md5s (~1 KB, under the TOAST threshold, so stored as written and not compressible).
  const rows = Math.round((MB * 1024 * 1024) / 1100);
  let t = process.hrtime.bigint();
  psql(`create table big (id int primary key, body text); insert into big select o.n, (select string_agg(md5(random()::text || o.n || i.k), '') from generate_series(1, 31) as i(k)) from generate_series(1, ${rows}) as o(n)`);
  psql('vacuum analyze big');
  const size = psql("select pg_database_size('app')").trim();
  console.log(`filled: ${rows} rows, pg_database_size ${(Number(size) / 1024 ** 2).toFixed(0)} MiB in ${seconds(t).toFixed(0)} s`);

  const step = backupStep(backupSources([pg]), { dir: DIR, project: PROJECT, backup: PATHS }, { schedule: '30 3 * * *', keepDays: 14, destination: `sftp://${backupHost.user}@${backupHost.host}:${backupHost.port}/${repoPath}` });
  const env = { ...process.env, BACKUP_PASSWORD: 'bench-restic-password', BACKUP_SSH_KEY: readFileSync(backupHost.private_key_file, 'utf8') };
  t = process.hrtime.bigint();
  const first = inWorkspace(step.commands.join('\n'), env);
  const firstWall = seconds(t);
  if (first.status !== 0) throw new Error(first.stdout + first.stderr);
  const [b1] = parseScriptResults(first.stdout);
  console.log(`first backup (the install step, restic present): ${firstWall.toFixed(1)} s wall, script ${b1?.seconds} s, ${((b1?.bytes ?? 0) / 1024 ** 2).toFixed(0)} MiB read, ${((b1?.added ?? 0) / 1024 ** 2).toFixed(0)} MiB added to the repository`);

  psql('update big set body = md5(body) || substr(body, 33) where id % 100 = 0');
  t = process.hrtime.bigint();
  const second = inWorkspace(`${SSH} 'sudo ${PATHS.backupScript}'`);
  const [b2] = parseScriptResults(second.stdout);
  console.log(`next backup (1% of rows changed): ${seconds(t).toFixed(1)} s wall, script ${b2?.seconds} s, ${((b2?.added ?? 0) / 1024 ** 2).toFixed(0)} MiB added, ok ${b2?.ok}`);

  t = process.hrtime.bigint();
  const drill = inWorkspace(`${SSH} 'sudo ${PATHS.drillScript}'`);
  const d = parseScriptResults(drill.stdout).find((r) => r.kind === 'drill');
  console.log(`restore drill (check, restore, load into a throwaway PostgreSQL, compare row counts): ${seconds(t).toFixed(1)} s wall, script ${d?.seconds} s, ${((d?.bytes ?? 0) / 1024 ** 2).toFixed(0)} MiB restored, ok ${d?.ok}, checks ${JSON.stringify(d?.checks)}${d?.ok ? '' : `\n${drill.stdout.slice(-2000)}${drill.stderr.slice(-2000)}`}`);
} finally {
  reset();
  rmSync(workspace, { recursive: true, force: true });
}
