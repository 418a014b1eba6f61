import type { SandboxConfig } from '../config';
import type { SandboxDriver } from './driver';
import { dockerConnection } from './docker/connection';
import { createDockerDriver } from './docker/dockerDriver';
import { connectKubernetes } from './kubernetes/connection';
import { createKubernetesDriver } from './kubernetes/kubernetesDriver';
import { createLocalDriver } from './local/localDriver';
import type { NetworkLog } from './local/userNetwork';

export type { SandboxDriver, SandboxRef } from './driver';

/**
 * The driver the configuration names, chosen once at start; `log` hears about the sandbox network. The
 * docker driver names its containers after `instanceId` (the server's id, kept in its database). Its
 * client library is loaded only when it is the one chosen (as the kubernetes driver's is, on connect).
 */
export async function createSandboxDriver(config: SandboxConfig, log?: NetworkLog, instanceId = 'default'): Promise<SandboxDriver> {
  switch (config.driver) {
    case 'local':
      return createLocalDriver({
        root: config.root,
        limits: { network: config.network, memoryMb: config.memoryMb, maxProcesses: config.maxProcesses, cpuSeconds: config.cpuSeconds },
        uidBase: config.uidBase,
        diskMb: config.diskMb,
        execTimeoutMs: config.execTimeoutMs,
        denyCidrs: config.denyCidrs,
        ...(log ? { log } : {}),
      });
    case 'docker': {
      const { default: Docker } = await import('dockerode');
      return createDockerDriver({
        docker: new Docker(dockerConnection(config.docker!.host)),
        engine: config.docker!.host,
        instanceId,
        root: config.root,
        image: config.docker!.image,
        runtime: config.docker!.runtime,
        network: config.network,
        memoryMb: config.memoryMb,
        cpus: config.docker!.cpus,
        pidsLimit: config.maxProcesses,
        diskMb: config.diskMb,
        ...(log ? { log } : {}),
        execTimeoutMs: config.execTimeoutMs,
        denyCidrs: config.denyCidrs,
      });
    }
    case 'kubernetes': {
      const k8s = config.kubernetes!;
      return createKubernetesDriver({
        connect: () => connectKubernetes(k8s.kubeconfig),
        root: config.root,
        namespace: k8s.namespace,
        image: k8s.image,
        runtimeClass: k8s.runtimeClass,
        storageClass: k8s.storageClass,
        storageSize: k8s.storageSize,
        network: config.network,
        memoryMb: config.memoryMb,
        cpus: k8s.cpus,
        execTimeoutMs: config.execTimeoutMs,
      });
    }
  }
}
