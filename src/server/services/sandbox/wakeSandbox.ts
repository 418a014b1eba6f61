import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerActionResponse, ContainerStatusResponse, SandboxInitializeResponse } from '../../../shared/api/sandbox';
import type { SandboxActivity } from './sandboxService';

type Project = { id: number; installationId: number };

/** The sandbox calls a wake makes (SandboxService narrowed). */
export interface WakeableSandbox {
  containerStatus(project: Project): Promise<ContainerStatusResponse>;
  initialise(project: Project): Promise<SandboxInitializeResponse>;
}

/** A sandbox that can also be put back to sleep: what else uses it, and its stop (SandboxService, with the terminal shells counted). */
export interface SleepingSandbox extends WakeableSandbox {
  activity(project: Project): SandboxActivity;
  stop(project: Project): Promise<ContainerActionResponse>;
}

export interface WakeOptions {
  /** Tries while another initialisation of the project is under way (it answers `creating`). */
  attempts?: number;
  waitMs?: number;
}

/**
 * The project's sandbox, running: when it is not (stopped by the person, or the server restarted), it is
 * initialised as the implementation confirm does before the execution's first step, which creates the
 * workspace or restores its newest backup (the SSH config and keys the deploy's steps wrote among its
 * files). Answers null once it runs, or why it does not, in words, for work that runs in it unasked
 * (a scheduled drift check). `woke` says whether this call started it, rather than found it running or
 * joined another request's start.
 */
async function wakeUp(sandbox: WakeableSandbox, project: Project, o: WakeOptions): Promise<{ notRunning: string | null; woke: boolean }> {
  const attempts = o.attempts ?? 6;
  try {
    if ((await sandbox.containerStatus(project)).container_status === 'Running') return { notRunning: null, woke: false };
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const init = await sandbox.initialise(project);
      // After a `creating` answer the start was another request's (the execution's confirm, say): not ours to undo.
      if (init.status === 'success') return { notRunning: null, woke: attempt === 1 };
      if (init.status === 'failed') return { notRunning: `the project's sandbox could not start: ${init.detail || 'no reason given'}`, woke: false };
      if (attempt < attempts) await sleep(o.waitMs ?? 5_000);
    }
    return { notRunning: "the project's sandbox is still being started by another request: try again in a minute", woke: false };
  } catch (err) {
    return { notRunning: `the project's sandbox could not start: ${(err as Error).message}`, woke: false };
  }
}

/** {@link wakeUp} alone, for work that leaves the sandbox running on purpose. */
export async function wakeSandbox(sandbox: WakeableSandbox, project: Project, o: WakeOptions = {}): Promise<string | null> {
  return (await wakeUp(sandbox, project, o)).notRunning;
}

/** What ran in a sandbox woken for it: the work's value, or why the sandbox would not run; and whether it went back to sleep. */
export type AwakeResult<T> = ({ ran: true; value: T } | { ran: false; notRunning: string }) & {
  /** Why a sandbox woken for the work could not be stopped again (it stays running), or null. */
  sleepError: string | null;
};

/** Checks sharing one wake of a project's sandbox: the last to end decides whether it sleeps again. */
interface SharedWake {
  holders: number;
  ready: Promise<{ notRunning: string | null; woke: boolean }>;
  /** Starts asked for once it was awake: one more by the time the checks end means someone started using it. */
  started: number;
  /** Set once the last holder ended: a later check waits for the sleep before it wakes the sandbox itself. */
  ending: Promise<string | null> | null;
}

/** By sandbox service (each app, each test its own), then by project. */
const wakes = new WeakMap<SleepingSandbox, Map<number, SharedWake>>();

/**
 * Runs `work` in the project's sandbox, woken for it when it was not running, and puts a sandbox it woke
 * back to sleep afterwards (its stop: processes ended, a verified backup) unless someone started using it
 * meanwhile: a command running (a step, the DevOps Helper), a terminal shell open, or a start asked for
 * (the person's Start, the execution's confirm). A drift check or a backup read thus leaves a stopped
 * sandbox stopped. Checks of one project that overlap share one wake; the last to end decides.
 */
export async function whileAwake<T>(sandbox: SleepingSandbox, project: Project, work: () => Promise<T>, o: WakeOptions = {}): Promise<AwakeResult<T>> {
  let byProject = wakes.get(sandbox);
  if (!byProject) wakes.set(sandbox, (byProject = new Map()));
  let wake = byProject.get(project.id);
  if (!wake || wake.ending) {
    const before = wake?.ending ?? Promise.resolve(null);
    const fresh: SharedWake = { holders: 0, started: 0, ending: null, ready: Promise.resolve({ notRunning: null, woke: false }) };
    fresh.ready = before.then(async () => {
      const woken = await wakeUp(sandbox, project, o);
      fresh.started = sandbox.activity(project).started;
      return woken;
    });
    byProject.set(project.id, fresh);
    wake = fresh;
  }
  const shared = wake;
  shared.holders += 1;
  // The last check to end decides about the sleep; a failed one counts as ended too.
  const end = (): Promise<string | null> | null => {
    shared.holders -= 1;
    return shared.holders === 0 ? (shared.ending = backToSleep(sandbox, project, shared)) : null;
  };
  let outcome: { ran: true; value: T } | { ran: false; notRunning: string };
  try {
    const { notRunning } = await shared.ready;
    outcome = notRunning ? { ran: false, notRunning } : { ran: true, value: await work() };
  } catch (err) {
    void end();
    throw err;
  }
  const ending = end();
  return { ...outcome, sleepError: ending ? await ending : null };
}

/** Stops a sandbox the shared wake started when nothing else used it; answers why a stop failed, or null. */
async function backToSleep(sandbox: SleepingSandbox, project: Project, wake: SharedWake): Promise<string | null> {
  try {
    const { woke } = await wake.ready;
    const now = sandbox.activity(project);
    if (!woke || now.running > 0 || now.started !== wake.started) return null;
    await sandbox.stop(project);
    return null;
  } catch (err) {
    return `the sandbox woken for the check could not be stopped again: ${(err as Error).message}`;
  } finally {
    if (wakes.get(sandbox)?.get(project.id) === wake) wakes.get(sandbox)!.delete(project.id);
  }
}
