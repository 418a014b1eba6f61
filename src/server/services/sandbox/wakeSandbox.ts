import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerStatusResponse, SandboxInitializeResponse } from '../../../shared/api/sandbox';

/** The sandbox calls a wake makes (SandboxService narrowed). */
export interface WakeableSandbox {
  containerStatus(project: { id: number; installationId: number }): Promise<ContainerStatusResponse>;
  initialise(project: { id: number; installationId: number }): Promise<SandboxInitializeResponse>;
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
 * (a scheduled drift check).
 */
export async function wakeSandbox(sandbox: WakeableSandbox, project: { id: number; installationId: number }, o: WakeOptions = {}): Promise<string | null> {
  const attempts = o.attempts ?? 6;
  try {
    if ((await sandbox.containerStatus(project)).container_status === 'Running') return null;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      const init = await sandbox.initialise(project);
      if (init.status === 'success') return null;
      if (init.status === 'failed') return `the project's sandbox could not start: ${init.detail || 'no reason given'}`;
      if (attempt < attempts) await sleep(o.waitMs ?? 5_000);
    }
    return "the project's sandbox is still being started by another request: try again in a minute";
  } catch (err) {
    return `the project's sandbox could not start: ${(err as Error).message}`;
  }
}
