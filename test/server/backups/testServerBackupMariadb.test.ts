import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { backupPaths, backupSources, installedPaths } from '../../../src/server/agents/offline/backupScripts';
import { backupStep } from '../../../src/server/agents/offline/backupSteps';
import { connectCommands, PIN_HOST_KEY, SSH } from '../../../src/server/agents/offline/remoteShell';
import { parseScriptResults } from '../../../src/shared/api/backups';
import { backupHost, requireInCi, sshTo, testServer } from '../helpers/testServer';

/**
 * A MariaDB stack backed up off the test server and proven by the drill from the catalogue's data alone:
 * the dump (mariadb-dump), its tables' exact row counts, and in the drill a throwaway MariaDB of the live
 * image on an internal network, the dump loaded and the counts compared. The image is the stand-in built
 * from Debian's mariadb-server (test/support/test-server/standins/mariadb) under the catalogue's tag.
 */

const server = testServer;
requireInCi(server, backupHost);

const DIR = `/opt/stack-backup-mariadb-${process.pid}`;
const PROJECT = `stackbackupmariadb${process.pid}`;
const PATHS = backupPaths(`maria${process.pid}`);
const ROWS = 3_000;

(server && backupHost ? describe : describe.skip)('a MariaDB stack backed up and restored by the drill', () => {
  const s = server!;
  const b = backupHost!;
  // describe.skip still runs this body: nothing here may read a backup host that is not there.
  const repoPath = `${backupHost?.path ?? ''}/jest-maria-${process.pid}`;
  const mariadb = PRODUCTS.mariadb!.services[0]!;
  let workspace: string;
  const inWorkspace = (command: string, env: NodeJS.ProcessEnv = process.env) => spawnSync('bash', ['-c', `set -euo pipefail\n${command}`], { cwd: workspace, env, encoding: 'utf8', timeout: 900_000 });
  const compose = (args: string): string => sshTo(s, `cd ${DIR} && docker-compose -p ${PROJECT} ${args}`, 300_000);
  const sql = (statement: string): string => compose(`exec -T mariadb mariadb -u root -pjest-root -N -B app -e ${JSON.stringify(statement)}`);
  const reset = (): void => void sshTo(s, `if [ -d ${DIR} ]; then cd ${DIR} && docker-compose -p ${PROJECT} down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${DIR} ${installedPaths(PATHS).join(' ')}`);

  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-backup-maria-'));
    mkdirSync(path.join(workspace, 'ssh-keys'));
    writeFileSync(path.join(workspace, 'ssh-keys/id'), readFileSync(s.private_key_file, 'utf8'), { mode: 0o600 });
    expect(inWorkspace([...connectCommands({ user: s.user, host: s.host, port: s.port }, 'ssh-keys/id'), PIN_HOST_KEY].join('\n')).status).toBe(0);
    reset();
    const environment = Object.fromEntries(Object.entries(mariadb.environment ?? {}).map(([k, v]) => [k, v.replace('${MARIADB_ROOT_PASSWORD}', 'jest-root').replace('${MARIADB_PASSWORD}', 'jest-app')]));
    const file = { services: { mariadb: { image: mariadb.image, environment, volumes: mariadb.volumes } }, volumes: { mariadbdata: {} } };
    sshTo(s, `sudo mkdir -p ${DIR} && sudo chown $(id -u) ${DIR} && cat > ${DIR}/docker-compose.yml <<'EOF'\n${JSON.stringify(file, null, 1)}\nEOF\ncd ${DIR} && docker-compose -p ${PROJECT} up -d --quiet-pull 2>&1`, 300_000);
    compose(`exec -T mariadb sh -c 'for i in $(seq 1 90); do mariadb -h 127.0.0.1 -u root -pjest-root -e "select 1" >/dev/null 2>&1 && exit 0; sleep 1; done; exit 1'`);
    // Rows from MariaDB's own sequence engine; a second table left empty.
    sql(`create table notes (id int primary key, body text); insert into notes select seq, concat('note ', seq) from seq_1_to_${ROWS}; create table empty_one (id int)`);
  }, 600_000);

  afterAll(() => {
    reset();
    sshTo(b, `rm -rf ${repoPath}`);
    rmSync(workspace, { recursive: true, force: true });
  });

  it('backs MariaDB up with its row counts, and the drill loads the dump into a throwaway MariaDB and finds the same', () => {
    const started = Date.now();
    const step = backupStep(backupSources([mariadb]), { dir: DIR, project: PROJECT, backup: PATHS }, { schedule: '30 3 * * *', keepDays: 14, destination: `sftp://${b.user}@${b.host}:${b.port}/${repoPath}` });
    expect(step.description).toContain('mariadb (a dump, loaded again by the drill and its tables and rows compared)');
    const ran = inWorkspace(step.commands.join('\n'), { ...process.env, BACKUP_PASSWORD: 'jest-restic-password', BACKUP_SSH_KEY: readFileSync(b.private_key_file, 'utf8') });
    expect({ status: ran.status, output: ran.status === 0 ? '' : ran.stdout + ran.stderr }).toEqual({ status: 0, output: '' });
    const [backup] = parseScriptResults(ran.stdout);
    expect(backup).toMatchObject({ kind: 'backup', ok: true, sources: 1 });
    const backupSeconds = (Date.now() - started) / 1000;

    const drillStarted = Date.now();
    const liveBefore = compose('ps -q').trim();
    const drill = inWorkspace(`${SSH} 'sudo ${PATHS.drillScript}'`);
    expect({ status: drill.status, output: drill.status === 0 ? '' : drill.stdout + drill.stderr }).toEqual({ status: 0, output: '' });
    const result = parseScriptResults(drill.stdout).find((r) => r.kind === 'drill')!;
    expect(result).toMatchObject({ ok: true, snapshot: backup!.snapshot });
    expect(result.checks).toEqual([{ what: 'mariadb', ok: true, tables: 2, rows: ROWS, load_errors: 0 }]);
    expect(compose('ps -q').trim()).toBe(liveBefore);
    expect(sshTo(s, `docker ps -aq --filter label=com.docker.compose.project=${PROJECT}-drill`).trim()).toBe('');
    // The figures for the report: the install step's first backup and the drill, wall clock.
    console.log(`MariaDB (${ROWS} rows): backup step ${backupSeconds.toFixed(1)} s (script ${backup!.seconds} s), drill ${((Date.now() - drillStarted) / 1000).toFixed(1)} s (script ${result.seconds} s)`);
  }, 900_000);
});
