import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectKubernetes } from '../../../src/server/sandbox/kubernetes/connection';
import { createKubernetesDriver } from '../../../src/server/sandbox/kubernetes/kubernetesDriver';
import { driverContract, killHostTar } from './driverContract';
import { FakeKubernetesApi } from './fakeKubernetesApi';

jest.setTimeout(120_000);

let api: FakeKubernetesApi;
let root = '';

driverContract(
  'kubernetes driver (a replay of the Kubernetes API, execs run for real)',
  async () => {
    api = new FakeKubernetesApi();
    await api.listen();
    const kubeconfig = api.writeKubeconfig();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'da-contract-k8s-'));
    const driver = createKubernetesDriver({
      connect: () => connectKubernetes(kubeconfig),
      root,
      namespace: 'devops-agents',
      image: 'buildpack-deps:bookworm-scm',
      storageSize: '10Gi',
      network: false,
      memoryMb: 2048,
      cpus: 1,
      execTimeoutMs: 60_000,
      pollMs: 20,
    });
    // A stop keeps the claim: losing it (as with a new cluster) is what makes a start restore.
    return { driver, root, killArchiver: killHostTar, archiverIsSandboxUser: true, loseWorkspace: (s) => api.loseClaim(`devops-agents-sandbox-${s.projectId}-workspace`) };
  },
  async () => {
    await api.close();
    fs.rmSync(root, { recursive: true, force: true });
  },
  80,
);
