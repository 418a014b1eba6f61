import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { backupPaths, backupScript, backupSources, DEFAULT_BACKUP_PATHS, drillScript, installedPaths } from '../../../src/server/agents/offline/backupScripts';
import { backupStep, installBackupScript } from '../../../src/server/agents/offline/backupSteps';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { BACKUP_RESULT_MARKER, failureInWords, parseScriptResults } from '../../../src/shared/api/backups';

/**
 * The backup and drill scripts from the catalogue's data: every product's services give scripts that
 * parse and pass ShellCheck, what is backed up follows the data (dumps, named volumes once, never bind
 * mounts), and the result lines are read with a JSON parser and the contract's schema.
 */

const hasShellcheck = spawnSync('shellcheck', ['--version'], { stdio: 'ignore' }).status === 0;
const place = { dir: '/opt/stack', project: 'stack' };

function shellProblems(scripts: Record<string, string>): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'da-backup-scripts-'));
  try {
    const files = Object.entries(scripts).map(([name, text]) => {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    });
    const problems: string[] = [];
    for (const f of files) {
      const syntax = spawnSync('bash', ['-n', f], { encoding: 'utf8' });
      if (syntax.status !== 0) problems.push(`${path.basename(f)}: ${syntax.stderr}`);
    }
    if (hasShellcheck) {
      const checked = spawnSync('shellcheck', ['-s', 'bash', '-S', 'warning', '-f', 'gcc', ...files], { encoding: 'utf8' });
      if (checked.status !== 0) problems.push(checked.stdout);
    }
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('backup sources come from the catalogue data', () => {
  it('dumps a service that declares a dump, archives the named volumes of the others once, never bind mounts', () => {
    const sources = backupSources([
      { name: 'db', volumes: ['dbdata:/var/lib/db'], backup: { dump: 'dump-it', extension: 'sql' } },
      { name: 'app', volumes: ['uploads:/srv/uploads', './config:/etc/app:ro', '/var/run/x:/x'] },
      { name: 'worker', volumes: ['uploads:/data'] },
      { name: 'web' },
    ]);
    expect(sources).toEqual([
      { kind: 'dump', service: 'db', dump: 'dump-it', extension: 'sql' },
      { kind: 'files', service: 'app', volume: 'uploads', path: '/srv/uploads' },
    ]);
  });

  it('every named volume of the stack is covered, by a dump of its service or as files (any services)', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd');
    const service = fc.record({
      name: fc.string({ minLength: 1, maxLength: 6 }).map((s) => s.replace(/[^a-z]/g, 'x')),
      volumes: fc.array(fc.oneof(name.map((v) => `${v}:/data/${v}`), fc.constant('./conf:/etc/conf')), { maxLength: 3 }),
      backup: fc.option(fc.constant({ dump: 'dump-it', extension: 'sql' }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(service, { maxLength: 6 }), (services) => {
        const sources = backupSources(services);
        const dumped = new Set(sources.flatMap((s) => (s.kind === 'dump' ? [s.service] : [])));
        const files = sources.flatMap((s) => (s.kind === 'files' ? [s.volume] : []));
        expect(new Set(files).size).toBe(files.length);
        for (const s of services) {
          for (const v of s.volumes.filter((x) => !x.startsWith('.'))) {
            const volume = v.split(':')[0]!;
            const covered = files.includes(volume) || services.some((o) => dumped.has(o.name) && o.volumes.some((x) => x.startsWith(`${volume}:`)));
            expect(covered).toBe(true);
          }
        }
      }),
    );
  });
});

describe('the scripts', () => {
  it.each(Object.keys(PRODUCTS))('%s: the backup, the drill and the install step parse and pass ShellCheck', (id) => {
    const sources = backupSources(PRODUCTS[id]!.services);
    const problems = shellProblems({
      'stack-backup': backupScript(sources, place),
      'stack-restore-drill': drillScript(sources, place),
      'install.sh': `#!/bin/bash\n${installBackupScript(sources, place, { schedule: '30 3 * * *', keepDays: 14, destination: 'sftp:restic@backup.example.net:/srv/restic' })}\n`,
      'step.sh': `#!/bin/bash\n${backupStep(sources, place).commands.join('\n')}\n`,
    });
    expect(problems).toEqual([]);
    // The step stays whole in the implementation plan: no line of it reads as a Markdown heading.
    const [parsed] = parsePlanSteps(`## Step 1: Back up\n\n\`\`\`bash\n${backupStep(sources, place).commands.join('\n')}\n\`\`\`\n`);
    expect(parsed!.command).toBe(backupStep(sources, place).commands.join('\n'));
  });

  it('the drill loads every relational database the catalogue holds and compares its rows; a dump it cannot load is said to be unproven', () => {
    const dumps = Object.values(PRODUCTS).flatMap((p) => p.services.filter((s) => s.backup).map((s) => ({ id: p.id, backup: s.backup! })));
    const loaded = dumps.filter((d) => d.backup.restore && d.backup.tables).map((d) => d.id);
    expect(loaded).toEqual(expect.arrayContaining(['postgres', 'mariadb', 'mysql']));
    const mongo = backupStep(backupSources(PRODUCTS.mongo!.services), place);
    expect(mongo.description).toContain('mongo (a dump; the drill only finds it in the backup: the catalogue declares no way to load it, so its restore is not proven)');
    expect(drillScript(backupSources(PRODUCTS.mariadb!.services), place)).toContain("docker exec -i \"$drill-mariadb\" sh -c 'MYSQL_PWD=\"$MARIADB_ROOT_PASSWORD\" mariadb -u root'");
  });

  it('the drill runs throwaway containers on their own internal network, without published ports', () => {
    const drill = drillScript(backupSources(PRODUCTS.postgres!.services), place);
    const runs = drill.split('\n').filter((l) => l.includes('docker run'));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toContain('--network "$drill"');
    expect(runs[0]).toContain('--label "com.docker.compose.project=$drill"');
    expect(runs[0]).not.toMatch(/ -p |--publish/);
    expect(drill).toContain('docker network create --internal');
    expect(drill).toContain('drill=stack-drill');
  });

  it('no secret value is in a script: the settings file holds them, readable by root only', () => {
    const step = backupStep(backupSources(PRODUCTS.postgres!.services), place).commands.join('\n');
    expect(step).toContain('install -m 600 /dev/stdin /etc/stack-backup/env');
    expect(step).not.toMatch(/echo "\$BACKUP_PASSWORD|echo "\$BACKUP_SSH_KEY|set -x/);
  });
});

describe('where an install lives on the server', () => {
  it('an install under paths of its own touches none of the default paths (two test runs on one server never meet)', () => {
    const sources = backupSources([...PRODUCTS.postgres!.services, ...PRODUCTS.redis!.services]);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,32}$/), (suffix) => {
        const own = { ...place, backup: backupPaths(suffix) };
        const text = [backupStep(sources, own).commands.join('\n'), backupScript(sources, own), drillScript(sources, own)].join('\n');
        for (const path of installedPaths(DEFAULT_BACKUP_PATHS)) expect(text).not.toMatch(new RegExp(`${path.replace(/[.]/g, '\\.')}(?![-\\w])`));
        for (const path of installedPaths(own.backup)) expect(text).toContain(path);
      }),
      { numRuns: 30 },
    );
    expect(() => backupPaths('../etc')).toThrow();
    expect(backupPaths()).toBe(DEFAULT_BACKUP_PATHS);
  });
});

describe('result lines', () => {
  const line = (value: unknown): string => `${BACKUP_RESULT_MARKER} ${JSON.stringify(value)}`;
  const restic = { message_type: 'summary', snapshot_id: 'abcd1234', total_bytes_processed: 10, data_added: 7, total_files_processed: 3, total_duration: 0.2 };
  const ok = { kind: 'backup', ok: true, started_at: '2026-11-28T05:00:00Z', seconds: 3, destination: 'SSH host b port 22, /srv/r', restic };

  it('reads the marked lines that hold a valid result, and the last backup a drill repeats', () => {
    const drill = { kind: 'drill', ok: false, started_at: '2026-11-28T05:10:00Z', seconds: 9, destination: 'x', step: 'restore the latest snapshot', detail: 'Fatal: wrong password', last_backup: ok };
    const output = ['noise', line(ok), `${BACKUP_RESULT_MARKER} {not json`, line({ kind: 'other' }), `  ${line(ok)}`, line(drill)].join('\n');
    const results = parseScriptResults(output);
    expect(results.map((r) => [r.kind, r.ok])).toEqual([
      ['backup', true],
      ['drill', false],
      ['backup', true],
    ]);
    expect(failureInWords(results[1]!)).toBe('Failed at "restore the latest snapshot": Fatal: wrong password');
    expect(failureInWords(results[0]!)).toBeNull();
    // Snapshot and sizes are restic's own words, read with a JSON parser.
    expect(results[0]).toMatchObject({ snapshot: 'abcd1234', bytes: 10, added: 7, files: 3 });
  });

  it("a success without restic's own output is not taken as one", () => {
    const claimed = { ...ok, restic: undefined, snapshot: 'abcd1234', bytes: 10 };
    const drill = { kind: 'drill', ok: true, started_at: '2026-11-28T05:10:00Z', seconds: 9, destination: 'x', restic_snapshots: [], checks: [] };
    const [backup, drilled] = parseScriptResults([line(claimed), line(drill)].join('\n'));
    expect(failureInWords(backup!)).toBe('Failed at "read restic\'s summary": the backup reported success without a restic summary of it');
    expect(drilled!.ok).toBe(false);
    const id = 'ab'.repeat(32);
    const [real] = parseScriptResults(line({ ...drill, restic_snapshots: [{ id, short_id: id.slice(0, 8), time: '2026-11-28T05:00:01Z', tree: 'x' }] }));
    expect(real).toMatchObject({ ok: true, snapshot: id.slice(0, 8), snapshot_time: '2026-11-28T05:00:01Z' });
  });

  it('never throws on any text', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseScriptResults(`${BACKUP_RESULT_MARKER} ${text}\n${text}`)));
  });
});
