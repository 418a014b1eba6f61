import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathsOf, type StackPlace } from '../../../src/server/agents/offline/backupScripts';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { connectCommands, DETECT_DOCKER, PIN_HOST_KEY, remote, SSH, waitHealthy } from '../../../src/server/agents/offline/remoteShell';
import { placeOfProject } from '../../../src/server/agents/offline/stackPlace';
import { compareToRelease } from '../../../src/server/services/releases/drift';
import { serverRunner } from '../../../src/server/services/releases/onServer';
import { readLiveState } from '../../../src/server/services/releases/releaseStore';
import type { ExecResult } from '../../../src/server/sandbox/driver';
import { requireInCi, testServer } from '../helpers/testServer';

/**
 * Two projects deployed to one server (the real test server, shared with other runs: names and ports of
 * this run's own) each get their own folder and compose project from their plans: the second deploy's
 * `up --remove-orphans` leaves the first's containers alone, both answer afterwards, and a drift check of
 * one (the release service's read-only commands) sees only its own containers.
 */

const server = testServer;
requireInCi(server);

/** A command in the workspace, as a sandbox runs it. */
function execIn(workspace: string, command: string): ExecResult {
  const started = Date.now();
  const r = spawnSync('bash', ['-c', `set -euo pipefail\n${command}`], { cwd: workspace, encoding: 'utf8', timeout: 300_000 });
  return { exitCode: r.status, output: `${r.stdout}${r.stderr}`, timedOut: false, cancelled: false, durationMs: Date.now() - started };
}

(server || process.env.CI ? describe : describe.skip)('two projects on one server', () => {
  const s = server!;
  let workspace: string;
  // Ids far from any real database's, unique to this run; names people could type.
  const projects = [
    { project: { id: 900_000 + (process.pid % 50_000) * 2, name: "Alice's shop" }, port: 18000 + (process.pid % 500) * 2 },
    { project: { id: 900_001 + (process.pid % 50_000) * 2, name: "Alice's shop" }, port: 18001 + (process.pid % 500) * 2 },
  ].map((x) => ({ ...x, place: placeOfProject(x.project) }));
  const run = (command: string): ExecResult => execIn(workspace, command);
  const onServer = (command: string): string => run(`${SSH} ${JSON.stringify(command)}`).output;
  const facts = () => extractFacts([`PostgreSQL on my existing server ${s.user}@${s.host} port ${s.port}`]);

  /** The plan's own "Copy the stack to the server" step for `place`, then the stack started there as "Start the stack" starts it. */
  const deploy = (place: StackPlace, port: number): ExecResult => {
    rmSync(path.join(workspace, 'stack'), { recursive: true, force: true });
    mkdirSync(path.join(workspace, 'stack', 'site'), { recursive: true });
    writeFileSync(path.join(workspace, 'stack', 'docker-compose.yml'), `version: "2.4"\nservices:\n  web:\n    image: nginx:1.27.2-alpine\n    ports:\n      - "127.0.0.1:${port}:80"\n    volumes:\n      - ./site:/usr/share/nginx/html:ro\n`);
    writeFileSync(path.join(workspace, 'stack', 'site', 'index.html'), `${place.project}\n`);
    const copy = planSteps(composeStack(facts(), { place })).find((x) => x.title === 'Copy the stack to the server')!;
    const copied = run(copy.commands.join('\n'));
    if (copied.exitCode !== 0) return copied;
    return run(remote([DETECT_DOCKER, `cd ${place.dir}`, 'compose up -d --remove-orphans', waitHealthy(60)].join('\n')));
  };
  const reset = (): void => {
    for (const { place } of projects) {
      onServer(`if [ -d ${place.dir} ]; then cd ${place.dir} && docker-compose down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo -n rm -rf ${place.dir} ${pathsOf(place).cron}`);
    }
  };

  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-two-'));
    mkdirSync(path.join(workspace, 'ssh-keys'), { mode: 0o700 });
    copyFileSync(s.private_key_file, path.join(workspace, 'ssh-keys', 'deploy_key'));
    expect(run(`chmod 600 ssh-keys/deploy_key\n${connectCommands({ user: s.user, host: s.host, port: s.port }, 'ssh-keys/deploy_key').join('\n')}\n${PIN_HOST_KEY}`).exitCode).toBe(0);
    reset();
  });
  afterAll(() => {
    if (!workspace) return;
    reset();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('both answer after the second deploy, and a drift check of one does not see the other', async () => {
    const [a, b] = projects as [(typeof projects)[number], (typeof projects)[number]];
    expect(a.place.dir).not.toBe(b.place.dir);
    const readState = (place: StackPlace) => {
      const runner = serverRunner({ exec: async (_p, command) => run(command) }, { id: 1, installationId: 1 }, []);
      return readLiveState((c, t) => runner.run(c, t), place.project, place.dir);
    };

    const first = deploy(a.place, a.port);
    expect({ exit: first.exitCode, output: first.exitCode === 0 ? '' : first.output }).toEqual({ exit: 0, output: '' });
    const baseline = await readState(a.place);
    const second = deploy(b.place, b.port);
    expect({ exit: second.exitCode, output: second.exitCode === 0 ? '' : second.output }).toEqual({ exit: 0, output: '' });

    // Each answers with its own files: the second copy wrote beside the first, not over it.
    expect(onServer(`curl -fsS http://127.0.0.1:${a.port}/`).trim()).toBe(a.place.project);
    expect(onServer(`curl -fsS http://127.0.0.1:${b.port}/`).trim()).toBe(b.place.project);

    // A's drift check against its state before B came: its containers are the same, B's are not among them.
    const live = await readState(a.place);
    expect(live.containers.map((c) => [c.service, c.ports])).toEqual([['web', [`127.0.0.1:${a.port}->80/tcp`]]]);
    const differences = compareToRelease({ containers: baseline.containers, baseline: { firewall: live.firewall, cron: live.cron } }, live).filter((d) => d.kind !== 'disk');
    expect(differences).toEqual([]);
  }, 600_000);
});
