import type { V1NetworkPolicy, V1PersistentVolumeClaim, V1Pod, V1SecurityContext } from '@kubernetes/client-node';
import type { SandboxRef } from '../driver';
import { SANDBOX_UID } from '../remote/workspace';
import { baseEnv, homeOf, workspaceOf } from '../workspaceLayout';

/** What the pod and claim of every sandbox share, from configuration. */
export interface SandboxPodSettings {
  namespace: string;
  /** Prefix of pod and claim names: `<prefix>-<projectId>`, `<prefix>-<projectId>-workspace`. */
  namePrefix: string;
  image: string;
  runtimeClass?: string;
  storageClass?: string;
  /** Quantity of each workspace claim, `10Gi`. */
  storageSize: string;
  /** Memory limit in MiB; 0 for none. */
  memoryMb: number;
  /** CPU limit; 0 for none. */
  cpus: number;
  /** Size of the /tmp emptyDir in MiB. */
  tmpSizeMb: number;
}

/** The container every program of a sandbox runs in (the name exec targets). */
export const SANDBOX_CONTAINER = 'sandbox';
/** Selects every sandbox pod (the no-network policy uses it). */
export const APP_LABEL = { 'app.kubernetes.io/name': 'devops-agents-sandbox' };
export const PROJECT_LABEL = 'devops-agents/project';
/** Where the init container sees the whole claim. */
const VOLUME_ROOT = '/volume';
/** The workspace is this folder of the claim, never its root: a new filesystem's root holds lost+found and belongs to root. */
const WORKSPACE_SUBPATH = 'workspace';

export const podName = (settings: SandboxPodSettings, s: SandboxRef): string => `${settings.namePrefix}-${s.projectId}`;
export const claimName = (settings: SandboxPodSettings, s: SandboxRef): string => `${settings.namePrefix}-${s.projectId}-workspace`;

const labelsOf = (s: SandboxRef): Record<string, string> => ({
  ...APP_LABEL,
  'app.kubernetes.io/managed-by': 'devops-agents',
  [PROJECT_LABEL]: String(s.projectId),
});

/** Every container of the pod: uid 1000, nothing to escalate to, no capabilities, a read-only root. */
const hardened = (): V1SecurityContext => ({
  runAsNonRoot: true,
  runAsUser: SANDBOX_UID,
  runAsGroup: SANDBOX_UID,
  allowPrivilegeEscalation: false,
  privileged: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
});

/**
 * The workspace claim: ReadWriteOnce, of the configured size and class. It outlives the pod: a stop
 * deletes the pod only.
 */
export function claimManifest(settings: SandboxPodSettings, s: SandboxRef): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claimName(settings, s), namespace: settings.namespace, labels: labelsOf(s) },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: settings.storageSize } },
      ...(settings.storageClass ? { storageClassName: settings.storageClass } : {}),
    },
  };
}

/**
 * The sandbox pod, meeting the "restricted" Pod Security Standard: every container runs as uid 1000
 * (fsGroup 1000 makes the claim writable to it), without privilege escalation or capabilities, with the
 * RuntimeDefault seccomp profile and a read-only root. The claim's `workspace` folder (made by a non-root
 * init container, so it belongs to uid 1000) is the workspace; /tmp and the home are emptyDirs. No
 * service account token, no service links, an optional RuntimeClass (gVisor, Kata). `sleep infinity`
 * keeps it alive; the shared process namespace makes the pause container PID 1, which reaps orphans.
 */
export function podManifest(settings: SandboxPodSettings, s: SandboxRef): V1Pod {
  const limits: Record<string, string> = {};
  const requests: Record<string, string> = { cpu: '100m', memory: '256Mi' };
  if (settings.memoryMb > 0) {
    limits.memory = `${settings.memoryMb}Mi`;
    requests.memory = `${Math.min(settings.memoryMb, 256)}Mi`;
  }
  if (settings.cpus > 0) {
    limits.cpu = `${Math.round(settings.cpus * 1000)}m`;
    requests.cpu = `${Math.min(Math.round(settings.cpus * 1000), 100)}m`;
  }
  const env = Object.entries(baseEnv(s.username)).map(([name, value]) => ({ name, value }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(settings, s), namespace: settings.namespace, labels: labelsOf(s) },
    spec: {
      ...(settings.runtimeClass ? { runtimeClassName: settings.runtimeClass } : {}),
      restartPolicy: 'Always',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      shareProcessNamespace: true,
      hostname: 'sandbox',
      terminationGracePeriodSeconds: 5,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: SANDBOX_UID,
        runAsGroup: SANDBOX_UID,
        fsGroup: SANDBOX_UID,
        fsGroupChangePolicy: 'OnRootMismatch',
        seccompProfile: { type: 'RuntimeDefault' },
      },
      initContainers: [
        {
          name: 'workspace',
          image: settings.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', `mkdir -p ${VOLUME_ROOT}/${WORKSPACE_SUBPATH} && chmod 0700 ${VOLUME_ROOT}/${WORKSPACE_SUBPATH}`],
          securityContext: hardened(),
          resources: { limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '10m', memory: '16Mi' } },
          volumeMounts: [{ name: 'workspace', mountPath: VOLUME_ROOT }],
        },
      ],
      containers: [
        {
          name: SANDBOX_CONTAINER,
          image: settings.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', 'infinity'],
          workingDir: workspaceOf(s.username),
          env,
          securityContext: hardened(),
          resources: { limits, requests },
          volumeMounts: [
            { name: 'home', mountPath: homeOf(s.username) },
            { name: 'workspace', mountPath: workspaceOf(s.username), subPath: WORKSPACE_SUBPATH },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [
        { name: 'workspace', persistentVolumeClaim: { claimName: claimName(settings, s) } },
        { name: 'home', emptyDir: { sizeLimit: '64Mi' } },
        { name: 'tmp', emptyDir: { sizeLimit: `${settings.tmpSizeMb}Mi` } },
      ],
    },
  };
}

/**
 * With networking off, one policy in the namespace denies every sandbox pod all ingress and egress.
 * Only a CNI that enforces NetworkPolicies (Calico, Cilium, …) makes it bite.
 */
export function noNetworkPolicy(settings: SandboxPodSettings): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `${settings.namePrefix}-no-network`, namespace: settings.namespace, labels: { 'app.kubernetes.io/managed-by': 'devops-agents' } },
    spec: { podSelector: { matchLabels: APP_LABEL }, policyTypes: ['Ingress', 'Egress'] },
  };
}
