import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { TOOLBOX_IMAGE } from '../../../src/server/config';
import { dockerConnection } from '../../../src/server/sandbox/docker/connection';
import { createDockerDriver, type DockerDriverOptions } from '../../../src/server/sandbox/docker/dockerDriver';
import { INSTANCE_LABEL } from '../../../src/server/sandbox/docker/names';
import type { SandboxDriver } from '../../../src/server/sandbox/driver';
import { boundedDisks } from '../../../src/server/sandbox/diskImage';

/**
 * The real Docker engine the docker driver's tests run against (DOCKER_HOST or the local socket) with the
 * toolbox image (`npm run sandbox:image`). Without them the tests are skipped on a developer's machine,
 * but fail in CI (CI=true), where .ci/run starts dockerd and builds the image.
 */
export const ENGINE = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
export const IMAGE = process.env.SANDBOX_DOCKER_IMAGE ?? TOOLBOX_IMAGE;

function engineReady(): boolean {
  try {
    execFileSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore', env: { ...process.env, DOCKER_HOST: ENGINE } });
    return true;
  } catch {
    return false;
  }
}

/** The engine and image are there, or this is CI, where their absence must fail the tests rather than skip them. */
export const engineAvailable = engineReady() || Boolean(process.env.CI);

/** `describe` when the engine can be tested, else `describe.skip`. */
export const describeWithEngine: jest.Describe = engineAvailable ? describe : describe.skip;

/** Removes every container, volume and network a server instance made on the engine. */
export async function removeInstance(instanceId: string, docker = new Docker(dockerConnection(ENGINE))): Promise<void> {
  const filters = { label: [`${INSTANCE_LABEL}=${instanceId}`] };
  for (const c of await docker.listContainers({ all: true, filters })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  for (const v of (await docker.listVolumes({ filters })).Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
  for (const n of await docker.listNetworks({ filters })) await docker.getNetwork(n.Id).remove().catch(() => undefined);
}

/**
 * Unmounts the bounded workspaces (SANDBOX_DISK_MB) under `dir`, which the docker driver leaves mounted
 * for its containers when it closes, so that the folder can go.
 */
export function unmountUnder(dir: string): void {
  const mountpoints = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((mountpoint): mountpoint is string => Boolean(mountpoint?.startsWith(`${path.resolve(dir)}/`)));
  for (const mountpoint of mountpoints) boundedDisks(1).discard(mountpoint);
}

/** Drivers on the real engine, each with an instance id of its own, and everything they made removed at the end. */
export function engineDrivers() {
  const docker = new Docker(dockerConnection(ENGINE));
  const instances: string[] = [];
  const roots: string[] = [];
  return {
    docker,
    driver(overrides: Partial<DockerDriverOptions> = {}): SandboxDriver & { instanceId: string; root: string } {
      const instanceId = overrides.instanceId ?? `t${randomBytes(4).toString('hex')}`;
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-engine-'));
      instances.push(instanceId);
      roots.push(root);
      const driver = createDockerDriver({
        docker,
        engine: ENGINE,
        root,
        image: IMAGE,
        network: false,
        memoryMb: 512,
        cpus: 1,
        pidsLimit: 128,
        execTimeoutMs: 60_000,
        namePrefix: 'devops-agents-test',
        ...overrides,
        instanceId,
      });
      return Object.assign(driver, { instanceId, root });
    },
    /** Removes every container, volume and network of the drivers made here. */
    async cleanUp(): Promise<void> {
      for (const instanceId of instances) await removeInstance(instanceId, docker);
      for (const root of roots) {
        unmountUnder(root);
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
