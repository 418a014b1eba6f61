import type { Db } from '../../db/client';
import type { Notice } from '../notifications/notificationService';
import { compareToRelease, type Difference } from './drift';
import { baselineRelease, markRolledBack, readLiveState, type RunOnServer } from './releaseStore';

/** The notification service's sending side, the only part these checks need. */
export interface Notifier {
  notify(projectId: number, notice: Notice): Promise<void>;
}

export interface DriftResult {
  /** The release compared against; absent when the project has none yet. */
  release: number | null;
  differences: Difference[];
}

/**
 * One drift check of a project: its live server, read by the read-only commands, against the last
 * release that was not rolled back. Differences reach the person through the project's notifications;
 * a clean check sends nothing.
 */
export async function checkDrift(db: Db, notifier: Notifier, project: { id: number; name: string; composeProject: string }, run: RunOnServer): Promise<DriftResult> {
  const release = await baselineRelease(db, project.id);
  if (!release) return { release: null, differences: [] };
  const differences = compareToRelease(release, await readLiveState(run, project.composeProject, release.directory));
  if (differences.length) {
    await notifier.notify(project.id, {
      event: 'drift',
      projectName: project.name,
      title: `The server differs from release ${release.number}`,
      detail: differences.map((d) => `${d.kind}: ${d.detail}`).join('\n'),
    });
  }
  return { release: release.number, differences };
}

/**
 * A change whose health gate failed: the release is marked rolled back (so drift compares against the
 * one restored) and the person is told, with the step's own words about which service failed.
 */
export async function reportFailedGate(db: Db, notifier: Notifier, project: { id: number; name: string }, failed: { number: number; output: string }): Promise<void> {
  await markRolledBack(db, project.id, failed.number);
  const reason = failed.output.split('\n').filter((l) => /not healthy in time|restored/.test(l));
  await notifier.notify(project.id, {
    event: 'health_gate_failed',
    projectName: project.name,
    title: `Release ${failed.number} failed its health check and was rolled back`,
    detail: reason.join('\n') || failed.output.slice(-500),
  });
}

/**
 * Drift checks on a schedule: one timer for the whole server, ticking every `minutes` (at most every five
 * minutes), that checks the projects due (`checkDue` reads each one's last check from the database, so a
 * restart picks the schedule up where it was). Off when `minutes` is 0. `stop` ends the timer and waits
 * for a check under way.
 */
export function scheduleDriftChecks(minutes: number, checkDue: (minutes: number) => Promise<number>, log: { warn(obj: object, msg: string): void }): { stop(): Promise<void> } {
  if (!minutes || minutes <= 0) return { stop: async () => undefined };
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = checkDue(minutes)
      .catch((err: unknown) => log.warn({ err }, 'scheduled drift checks failed'))
      .finally(() => (running = null));
  }, Math.min(minutes, 5) * 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
