import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { renderImplementationPlan } from '../../../src/server/agents/offline/documents';
import { modelOfStack, renderStack } from '../../../src/server/agents/offline/stackModelBridge';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { renderValidationPlan } from '../../../src/server/agents/offline/validationPlanner';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { installedPaths, pathsOf } from '../../../src/server/agents/offline/backupScripts';
import { ownFile, placeOfProject } from '../../../src/server/agents/offline/stackPlace';
import { requireInCi, sshTo, testServer } from '../helpers/testServer';

/**
 * The offline planner's deploy and validation plans against the real test server (`npm run
 * test-server:up`; CI starts it): every step runs as the step runner runs it (bash, set -euo pipefail)
 * in a fresh workspace, the stack comes up healthy, validation passes, and fails once nginx is stopped.
 */

const server = testServer;
requireInCi(server);

const onServer = sshTo;

interface Ran { step: number; title: string; status: number | null; output: string; seconds: number }

function run(plan: string, workspace: string, env: NodeJS.ProcessEnv): Ran[] {
  return parsePlanSteps(plan).map((s) => {
    const started = Date.now();
    const r = spawnSync('bash', ['-c', `set -euo pipefail\n${s.command ?? ''}`], { cwd: workspace, env, encoding: 'utf8', timeout: 600_000 });
    return { step: s.stepNumber, title: s.description, status: r.status, output: `${r.stdout}${r.stderr}`, seconds: (Date.now() - started) / 1000 };
  });
}

/** Runs the steps in order and stops at the first that fails, as the execution stage does. */
function runUntilFailure(plan: string, workspace: string, env: NodeJS.ProcessEnv): Ran[] {
  const ran: Ran[] = [];
  for (const s of parsePlanSteps(plan)) {
    const r = spawnSync('bash', ['-c', `set -euo pipefail\n${s.command ?? ''}`], { cwd: workspace, env, encoding: 'utf8', timeout: 600_000 });
    ran.push({ step: s.stepNumber, title: s.description, status: r.status, output: `${r.stdout}${r.stderr}`, seconds: 0 });
    if (r.status !== 0) break;
  }
  return ran;
}

(server || process.env.CI ? describe : describe.skip)('deploying to the test server', () => {
  const s = server!;
  let workspace: string;
  // This run's own place on the shared server (another run's or journey's stack may be there beside it).
  const place = placeOfProject({ id: 700_000 + (process.pid % 100_000), name: 'jest deploy' });
  const dir = place.dir;
  const reset = (): void => void onServer(s, `if [ -d ${dir} ]; then cd ${dir} && docker-compose down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${dir} ${ownFile(place, '/etc/cron.d/stack-maintenance')} ${installedPaths(pathsOf(place)).join(' ')}`);
  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-deploy-'));
    mkdirSync(path.join(workspace, 'ssh-keys'));
    reset();
  });
  afterAll(() => {
    reset();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('brings the stack up healthy, validation passes, and fails when nginx is stopped', () => {
    const facts = extractFacts([`PostgreSQL and Redis with nginx in front, on my existing server ${s.user}@${s.host} port ${s.port}, plain HTTP`]);
    facts.acceptsDefaults = true;
    const implementation = renderImplementationPlan(composeStack(facts, { place }));
    const env = { ...process.env, SSH_PRIVATE_KEY: readFileSync(s.private_key_file, 'utf8'), POSTGRES_PASSWORD: 'jest-postgres', REDIS_PASSWORD: 'jest-redis' };

    const deployed = run(implementation, workspace, env);
    for (const r of deployed) expect({ step: r.title, status: r.status, output: r.status === 0 ? '' : r.output }).toEqual({ step: r.title, status: 0, output: '' });
    expect(deployed[0]!.output).toMatch(new RegExp(`\\[${s.host.replace(/\./g, '\\.')}\\]:${s.port} \\(ED25519\\)`));
    expect(deployed.find((r) => r.title.startsWith('Check what the server has'))!.output).toContain('Compose: v1 (docker-compose 1.29');
    const healthy = onServer(s, `docker ps --filter label=com.docker.compose.project=${place.project} --format '{{.Names}} {{.Status}}'`).trim().split('\n').filter((l) => /\(healthy\)$/.test(l));
    expect(healthy.map((l) => l.split(' ')[0]).sort()).toEqual(['postgres', 'proxy', 'redis'].map((x) => `${place.project}_${x}_1`));
    // The stand-in PostgreSQL honours POSTGRES_USER/POSTGRES_DB/POSTGRES_PASSWORD.
    expect(onServer(s, `cd ${dir} && docker-compose exec -T postgres psql -U app -d app -tAc 'select current_user'`).trim()).toBe('app');

    const executed = parsePlanSteps(implementation).map((x) => ({ step_number: x.stepNumber, status: 'completed', description: x.description, command: x.command }));
    const validation = renderValidationPlan(executed, implementation);
    const passed = run(validation, workspace, env);
    expect(passed.map((r) => [r.title, r.status])).toEqual(passed.map((r) => [r.title, 0]));

    onServer(s, `cd ${dir} && docker-compose stop proxy`);
    const failed = run(validation, workspace, env);
    const byTitle = Object.fromEntries(failed.map((r) => [r.title, r.status]));
    expect(byTitle['Reach the server with its pinned host key']).toBe(0);
    expect(byTitle['Every service of the compose file runs and is healthy']).not.toBe(0);
    expect(byTitle["The proxy answers on the server's address"]).not.toBe(0);
    expect(byTitle['The firewall is as planned']).not.toBe(0);
    process.stdout.write(`deploy step durations (s): ${deployed.map((r) => `${r.step} ${r.title}: ${r.seconds.toFixed(1)}`).join('; ')}\n`);
  }, 900_000);

  const validate = (implementation: string, env: NodeJS.ProcessEnv): Ran[] => {
    const executed = parsePlanSteps(implementation).map((x) => ({ step_number: x.stepNumber, status: 'completed', description: x.description, command: x.command }));
    return run(renderValidationPlan(executed, implementation), workspace, env);
  };

  it("Caddy in front: on a server whose port 80 is taken the plan stops naming what holds it; with the server's facts it moves and deploys green", () => {
    reset();
    const env = { ...process.env, SSH_PRIVATE_KEY: readFileSync(s.private_key_file, 'utf8'), POSTGRES_PASSWORD: 'jest-postgres', REDIS_PASSWORD: 'jest-redis' };
    onServer(s, 'docker rm -f old-web >/dev/null 2>&1; docker run -d --name old-web --label com.docker.compose.project=shop -p 80:80 nginx:1.27.2-alpine >/dev/null');
    try {
      const stack = composeStack(extractFacts([`A static website with Caddy in front, plain HTTP, and PostgreSQL, on my existing server ${s.user}@${s.host} port ${s.port}`]), { place });
      const stopped = runUntilFailure(renderImplementationPlan(stack), workspace, env);
      const failed = stopped[stopped.length - 1]!;
      expect(failed.title).toBe('Check what the server has: Docker Engine and Compose');
      expect(failed.output).toContain('port 80 is already in use on the server by old-web (compose project shop)');
      expect(onServer(s, `ls ${dir} 2>/dev/null || echo none`).trim()).toBe('none');

      // What the inspection found goes into the model; the plan rendered from it publishes Caddy elsewhere.
      const model = modelOfStack(stack);
      model.serverFacts = { inspectedAt: new Date().toISOString(), portsInUse: [{ port: 80, protocol: 'tcp', holder: 'container old-web (compose project shop)' }], containers: [{ name: 'old-web', image: 'nginx:1.27.2-alpine', project: 'shop' }], composeProjects: ['shop'] };
      const moved = renderStack(model, { place });
      expect(moved.notes.join(' ')).toContain('caddy is published on port 8080 instead of 80');
      const implementation = renderImplementationPlan(moved);
      const deployed = run(implementation, workspace, env);
      for (const r of deployed) expect({ step: r.title, status: r.status, output: r.status === 0 ? '' : r.output }).toEqual({ step: r.title, status: 0, output: '' });
      const checks = validate(implementation, env);
      expect(checks.map((r) => [r.title, r.status === 0 ? 0 : r.output])).toEqual(checks.map((r) => [r.title, 0]));
      expect(checks.map((r) => r.title)).toEqual(expect.arrayContaining(['web answers through caddy at http://the server:8080/', 'The latest backup restores (restore drill)']));
      expect(onServer(s, 'curl -fsS http://127.0.0.1:8080/')).toContain('is running');
    } finally {
      onServer(s, 'docker rm -f old-web >/dev/null 2>&1 || true');
    }
  }, 900_000);

  it('PostgreSQL and Redis kept private behind Caddy: nothing of theirs is published, validation from the model is green', () => {
    reset();
    const env = { ...process.env, SSH_PRIVATE_KEY: readFileSync(s.private_key_file, 'utf8'), POSTGRES_PASSWORD: 'jest-postgres', REDIS_PASSWORD: 'jest-redis' };
    const stack = composeStack(extractFacts([`PostgreSQL and a Redis cache, with Caddy in front serving plain HTTP, on my existing server ${s.user}@${s.host} port ${s.port}`]), { place });
    expect(stack.published.filter((p) => !p.port.startsWith('127.0.0.1:')).map((p) => p.service)).toEqual(['caddy']);
    const implementation = renderImplementationPlan(stack);
    const deployed = run(implementation, workspace, env);
    for (const r of deployed) expect({ step: r.title, status: r.status, output: r.status === 0 ? '' : r.output }).toEqual({ step: r.title, status: 0, output: '' });
    // The proxy with nothing behind it says what the stack is.
    expect(onServer(s, 'curl -fsS http://127.0.0.1/')).toMatch(/this server runs PostgreSQL 16, Redis 7\.4/);
    const checks = validate(implementation, env);
    expect(checks.map((r) => [r.title, r.status === 0 ? 0 : r.output])).toEqual(checks.map((r) => [r.title, 0]));
    expect(checks.map((r) => r.title)).toContain('The latest backup restores (restore drill)');
  }, 900_000);
});
