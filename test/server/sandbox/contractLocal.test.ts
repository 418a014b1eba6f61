import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { driverContract, killHostTar } from './driverContract';

jest.setTimeout(120_000);

let dataDir = '';
let driver: SandboxDriver | null = null;

driverContract(
  'local driver (bubblewrap, for real)',
  () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-contract-local-'));
    const root = path.join(dataDir, 'sandboxes');
    driver = createLocalDriver({
      root,
      limits: { network: false, memoryMb: 2048, maxProcesses: 128, cpuSeconds: 600 },
      uidBase: 200_000,
      execTimeoutMs: 60_000,
    });
    return { driver, root, killArchiver: killHostTar, archiverIsSandboxUser: true, forkBomb: process.getuid?.() === 0 };
  },
  async () => {
    await driver?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  },
  40,
);
