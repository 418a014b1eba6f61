import { and, desc, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { driftChecks, executionSteps, projects, releases } from '../../db/schema';
import { conflict, notFound } from '../../errors';
import { remote } from '../../agents/offline/remoteShell';
import { placeOfDirectory } from '../../agents/offline/stackPlace';
import { projectPlace } from './projectPlace';
import type { DriftCheck, DriftDifference, RollbackResponse } from '../../../shared/api/releases';
import type { Step } from '../../../shared/api/execution';
import type { EndedStep, StepProject } from '../steps/stepRuns';
import { compareToRelease } from './drift';
import { parseDeployedFiles, readDeployedFilesCommand } from './deployedFiles';
import { serverRunner, type SandboxExec } from './onServer';
import { GATE_FAILED_MARKER, gateFailureNote } from '../../agents/offline/releaseGate';
import type { Notice } from '../notifications/notificationService';
import { baselineRelease, readLiveState, recordRelease, type Release } from './releaseStore';
import { rollbackScript } from './releaseScripts';
import { whileAwake, type SleepingSandbox, type WakeOptions } from '../sandbox/wakeSandbox';
import { oneShotServices } from '../../agents/offline/oneShot';
import { secretFinder, textRedactor } from '../../sandbox/redactor';
import type { EventBus } from '../events/eventBus';
import type { TerminalStreamEvent } from '../../../shared/api/terminal';
import { terminalCommandsTopic } from '../steps/stepRuns';

/** The notification service's sending side, the only part releases need. */
export interface Notifier {
  notify(projectId: number, notice: Notice): Promise<void>;
}

export interface ReleaseDeps {
  db: Db;
  /** Runs the read-only commands; a drift check wakes a sandbox that is not running first, and puts it back to sleep after. */
  sandbox: SandboxExec & SleepingSandbox;
  /** The values redacted from what the sandbox prints (User Secrets). */
  hiddenValues(projectId: number): Promise<Record<string, string>>;
  /** The execution plan a roll back is appended to, as a step waiting for approval. */
  execution: {
    addStep(projectId: number, step: { command: string | null; description: string; prompt: string }): Promise<Step>;
    planOf(projectId: number): Promise<{ id: number } | undefined>;
  };
  notifier: Notifier;
  /** The project's step stream (GET /api/terminal/commands): told when a release is recorded, so open pages list it. */
  commands?: Pick<EventBus<TerminalStreamEvent>, 'publish'>;
  log: { warn(obj: object, msg: string): void };
  /** How long a roll back waits for the restored services to be healthy. */
  rollbackGateSeconds?: number;
  /** How a drift check waits for a sandbox another request is starting (tests shorten it). */
  wake?: WakeOptions;
}

/** The last line of a roll back step that succeeded (releaseScripts.rollbackScript). */
const ROLLED_BACK_TO = /^release (\d+) restored and healthy$/m;

type ProjectRef = StepProject & { name?: string };

const sameDifferences = (a: DriftDifference[], b: DriftDifference[]): boolean =>
  JSON.stringify([...a].map((d) => `${d.kind}:${d.detail}`).sort()) === JSON.stringify([...b].map((d) => `${d.kind}:${d.detail}`).sort());

const toDriftCheck = (row: typeof driftChecks.$inferSelect): DriftCheck => ({
  checked_at: row.checkedAt.toISOString(),
  release: row.releaseNumber,
  checks: row.checks,
  differences: row.differences,
  error: row.error,
});

/**
 * Releases of the deployed stack: a deploy whose every step completed is recorded from what the server
 * has (files, image digests, ports, firewall and cron); a "Start the stack" step whose health gate failed
 * (and restored the last healthy release, see releaseGate.ts) is recorded as rolled back and the person
 * told; "Roll back" becomes an execution step the person approves; drift checks compare the live server
 * with the last release through read-only commands, each kept with its output.
 */
export function createReleaseService(deps: ReleaseDeps) {
  const { db, sandbox } = deps;
  /** Work started after a step ended; `idle()` waits for it (shutdown, tests). */
  const pending = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    pending.add(work);
    void work.finally(() => pending.delete(work)).catch(() => undefined);
    return work;
  };

  const sandboxOf = (p: StepProject) => ({ id: p.projectId, installationId: p.installationId });
  const hidden = async (projectId: number): Promise<string[]> => Object.values(await deps.hiddenValues(projectId));
  async function nameOf(projectId: number): Promise<string> {
    const [row] = await db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
    return row?.name ?? `project ${projectId}`;
  }

  const announce = (projectId: number, number: number, status: 'live' | 'rolled_back'): void => deps.commands?.publish(terminalCommandsTopic(projectId), { release: { number, status } });

  /** Reads what the deploy left on the server and stores it as the project's next release. */
  async function recordDeploy(project: StepProject, also: string[] = []): Promise<Release | null> {
    const secrets = await hidden(project.projectId);
    // Where the plan put it: the project's place (its recorded directory, or the one its plan derived).
    const { dir: directory, project: composeProject } = await projectPlace(db, project.projectId);
    // Read unredacted: redacting the base64 the files travel in blanked files that hold no secret (a key's
    // text holds base64 pieces, "c2VydmVy" of a comment's "server", which an nginx file's "server {" encodes
    // to as well). Each decoded file is checked instead, and one holding a secret value is left out.
    const read = await sandbox.exec(sandboxOf(project), readDeployedFilesCommand(directory, also), { timeoutMs: 120_000 });
    // 4: the plan deploys no compose stack (a host-only plan): there is no release to keep.
    if (read.exitCode === 4) return null;
    if (read.exitCode !== 0) throw new Error(`could not read the deployed files: ${textRedactor(secrets)(read.output.trim().split('\n').slice(-2).join(' '))}`);
    const parsed = parseDeployedFiles(read.output);
    const holdsSecret = secretFinder(secrets);
    const files = Object.fromEntries(Object.entries(parsed.files).filter(([, text]) => !holdsSecret(text)));
    const skipped = [...parsed.skipped, ...Object.keys(parsed.files).filter((f) => !(f in files)).map((f) => `${f} (holds a secret value)`)];
    if (!files['docker-compose.yml']) throw new Error('the server has no docker-compose.yml in the stack directory');
    if (skipped.length) deps.log.warn({ projectId: project.projectId, skipped }, 'files left out of a release');
    const runner = serverRunner(sandbox, sandboxOf(project), secrets);
    const live = await readLiveState((c, t) => runner.run(c, t), composeProject, directory);
    // A step of a finished deploy run again (its check, say) changes nothing: the same files and images are no new release.
    const current = await baselineRelease(db, project.projectId);
    const identity = (f: Record<string, string>, c: Array<{ service: string; digest: string; ports: string[] }>): string =>
      JSON.stringify([Object.entries(f).sort(), c.map((x) => [x.service, x.digest, x.ports]).sort()]);
    if (current?.status === 'live' && identity(current.files, current.containers) === identity(files, live.containers)) return current;
    const recorded = await recordRelease(db, project.projectId, directory, files, live);
    announce(project.projectId, recorded.number, 'live');
    return recorded;
  }


  /** A deploy step's health gate failed and the last healthy release was restored: kept, and the person told. */
  async function reportGateFailure(project: StepProject, output: string): Promise<void> {
    const note = gateFailureNote(output);
    const [last] = await db.select({ number: releases.number }).from(releases).where(eq(releases.projectId, project.projectId)).orderBy(desc(releases.number)).limit(1);
    const restored = await baselineRelease(db, project.projectId);
    const number = (last?.number ?? 0) + 1;
    const { dir: directory } = await projectPlace(db, project.projectId);
    await db.insert(releases).values({ projectId: project.projectId, number, directory, files: {}, containers: [], baseline: { firewall: [], cron: [] }, status: 'rolled_back', note });
    announce(project.projectId, number, 'rolled_back');
    await deps.notifier.notify(project.projectId, {
      event: 'health_gate_failed',
      projectName: await nameOf(project.projectId),
      title: `The change failed its health check and ${restored ? `release ${restored.number}` : 'the previous release'} was restored`,
      detail: note,
    });
  }

  async function afterStep(project: StepProject, planId: number, step: EndedStep & { output: string }): Promise<void> {
    if (step.status === 'failed' && step.output.includes(GATE_FAILED_MARKER)) return reportGateFailure(project, step.output);
    if (step.status !== 'completed') return;
    const open = await db.select({ n: executionSteps.stepNumber }).from(executionSteps).where(and(eq(executionSteps.planId, planId), ne(executionSteps.status, 'completed'))).limit(1);
    if (open.length) return;
    // A roll back step restored a release whose files the workspace may no longer have: read those too.
    const restored = ROLLED_BACK_TO.exec(step.output);
    const [target] = restored ? await db.select({ files: releases.files }).from(releases).where(and(eq(releases.projectId, project.projectId), eq(releases.number, Number(restored[1])))) : [];
    await recordDeploy(project, Object.keys(target?.files ?? {}));
  }

  /** Checks under way by project: a second request while one runs gets the same result, not a second run. */
  const checking = new Map<number, Promise<DriftCheck>>();
  function checkDrift(project: StepProject): Promise<DriftCheck> {
    const running = checking.get(project.projectId);
    if (running) return running;
    const check = runDriftCheck(project).finally(() => checking.delete(project.projectId));
    checking.set(project.projectId, check);
    return check;
  }

  /** Runs the read-only checks now and stores the result; notifies when the differences are new. */
  async function runDriftCheck(project: StepProject): Promise<DriftCheck> {
    const [previous] = await db.select().from(driftChecks).where(eq(driftChecks.projectId, project.projectId));
    const release = await baselineRelease(db, project.projectId);
    const runner = serverRunner(sandbox, sandboxOf(project), await hidden(project.projectId));
    let differences: DriftDifference[] = [];
    let error: string | null = null;
    if (!release) error = 'Nothing to compare with: the project has no release yet (a deploy whose every step completed records one).';
    else {
      // The commands run in the project's sandbox: one stopped (or gone with a restart) is woken for them, and stopped again after unless someone began using it.
      const awake = await whileAwake(
        sandbox,
        sandboxOf(project),
        async () => {
          try {
            return { differences: compareToRelease(release, await readLiveState((c, t) => runner.run(c, t), placeOfDirectory(release.directory).project, release.directory)), error: null };
          } catch (err) {
            return { differences: [], error: `The check could not finish: ${(err as Error).message}` };
          }
        },
        deps.wake,
      );
      if (awake.sleepError) deps.log.warn({ projectId: project.projectId, err: awake.sleepError }, 'the sandbox woken for a drift check stays running');
      if (awake.ran) ({ differences, error } = awake.value);
      else error = `The check could not run: ${awake.notRunning}.`;
    }
    const row = { projectId: project.projectId, checkedAt: new Date(), releaseNumber: release?.number ?? null, checks: runner.runs, differences, error };
    await db.insert(driftChecks).values(row).onConflictDoUpdate({ target: driftChecks.projectId, set: row });
    if (differences.length && !(previous && sameDifferences(previous.differences, differences))) {
      await deps.notifier.notify(project.projectId, {
        event: 'drift',
        projectName: await nameOf(project.projectId),
        title: `The server differs from release ${release!.number}`,
        detail: differences.map((d) => `${d.kind}: ${d.detail}`).join('\n'),
      });
    }
    return toDriftCheck(row);
  }

  return {
    recordDeploy,
    checkDrift,

    /** The execution runner's hook (ExecutionDeps.afterStepStored): never throws, work is tracked. */
    afterStepStored(project: StepProject, planId: number, step: EndedStep & { output: string }): void {
      track(afterStep(project, planId, step)).catch((err: unknown) => deps.log.warn({ projectId: project.projectId, err: (err as Error).message }, 'could not record the release of a deploy'));
    },

    async lastDriftCheck(projectId: number): Promise<DriftCheck | null> {
      const [row] = await db.select().from(driftChecks).where(eq(driftChecks.projectId, projectId));
      return row ? toDriftCheck(row) : null;
    },

    /**
     * "Roll back" to a chosen release: a step appended to the execution plan, waiting for approval, that
     * writes exactly that release's files over the stack, brings it up and waits until it is healthy.
     *
     * @throws 404 when the project has no such release; 409 when it was rolled back itself, is the one
     *   running now, or the project has no execution plan.
     */
    async requestRollback(project: ProjectRef, number: number): Promise<RollbackResponse> {
      const [target] = await db.select().from(releases).where(and(eq(releases.projectId, project.projectId), eq(releases.number, number)));
      if (!target) throw notFound(`The project has no release ${number}`);
      if (target.status === 'rolled_back') throw conflict(`Release ${number} failed its health check when it was applied: choose a release that ran`);
      const current = await baselineRelease(db, project.projectId);
      if (current?.number === number) throw conflict(`Release ${number} is the one running now`);
      const plan = await deps.execution.planOf(project.projectId);
      if (!plan) throw conflict('There is no execution plan to add the roll back to: deploy first.');
      const gateSeconds = deps.rollbackGateSeconds ?? 300;
      const command = remote(
        rollbackScript({
          project: placeOfDirectory(target.directory).project,
          directory: target.directory,
          target: { number, files: target.files },
          ...(current ? { current: { number: current.number, files: current.files } } : {}),
          gateSeconds,
        }),
      );
      const files = Object.keys(target.files).sort();
      const once = oneShotServices(target.files['docker-compose.yml']);
      const step = await deps.execution.addStep(project.projectId, {
        command,
        description: `Roll back to release ${number} (deployed ${target.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC): write its files (${files.join(', ')}) over the stack in ${target.directory}${current ? `, replacing release ${current.number}'s` : ''}, bring it up and wait up to ${gateSeconds} s until its services are healthy${once.length ? ` (${once.join(', ')} ${once.length === 1 ? 'runs' : 'run'} once: done when exited with code 0)` : ''}. Data volumes are kept.`,
        prompt: `Roll back to release ${number}`,
      });
      return { plan_id: plan.id, step_number: step.step_number, command: step.command ?? command, detail: `Step ${step.step_number} rolls back to release ${number}: approve it to run it.` };
    },

    /**
     * Checks every deployed project whose last check is older than `minutes` (read from the database, so
     * a restart resumes the schedule rather than restarting it), one after another.
     */
    async checkDue(minutes: number): Promise<number> {
      const deployed = await db
        .selectDistinct({ projectId: releases.projectId, installationId: projects.installationId })
        .from(releases)
        .innerJoin(projects, eq(projects.id, releases.projectId))
        .where(eq(releases.status, 'live'));
      const last = new Map((await db.select({ projectId: driftChecks.projectId, at: driftChecks.checkedAt }).from(driftChecks)).map((r) => [r.projectId, r.at.getTime()]));
      const due = deployed.filter((p) => (last.get(p.projectId) ?? 0) <= Date.now() - minutes * 60_000);
      for (const p of due) {
        await checkDrift(p).catch((err: unknown) => deps.log.warn({ projectId: p.projectId, err: (err as Error).message }, 'a scheduled drift check failed'));
      }
      return due.length;
    },

    /** Waits for the work started after steps ended (a release being recorded). */
    async idle(): Promise<void> {
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}

export type ReleaseService = ReturnType<typeof createReleaseService>;
