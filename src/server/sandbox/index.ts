import type { SandboxConfig } from '../config';
import type { SandboxDriver } from './driver';
import { createLocalDriver } from './local/localDriver';

export type { SandboxDriver, SandboxRef } from './driver';

/** The driver the configuration names, chosen once at start. */
export function createSandboxDriver(config: SandboxConfig): SandboxDriver {
  switch (config.driver) {
    case 'local':
      return createLocalDriver({
        root: config.root,
        limits: { network: config.network, memoryMb: config.memoryMb, maxProcesses: config.maxProcesses, cpuSeconds: config.cpuSeconds },
        uidBase: config.uidBase,
        execTimeoutMs: config.execTimeoutMs,
      });
  }
}
