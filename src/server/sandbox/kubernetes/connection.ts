import type { CoreV1Api, Exec, NetworkingV1Api } from '@kubernetes/client-node';

/** The parts of `@kubernetes/client-node` the kubernetes driver uses, bound to one cluster. */
export interface KubernetesClients {
  core: CoreV1Api;
  networking: NetworkingV1Api;
  /** Exec over the API server's WebSocket (`v5`/`v4.channel.k8s.io`). */
  exec: Exec;
}

/**
 * Connects to the cluster a kubeconfig file names, or when there is none to the default one
 * (`KUBECONFIG`, `~/.kube/config`, then the service account of the pod the server runs in). The client
 * is imported here, on first use, so that a server with another driver never loads it.
 *
 * @example const clients = await connectKubernetes('/etc/devops-agents/kubeconfig');
 */
export async function connectKubernetes(kubeconfig?: string): Promise<KubernetesClients> {
  const k8s = await import('@kubernetes/client-node');
  const config = new k8s.KubeConfig();
  if (kubeconfig) config.loadFromFile(kubeconfig);
  else config.loadFromDefault();
  return { core: config.makeApiClient(k8s.CoreV1Api), networking: config.makeApiClient(k8s.NetworkingV1Api), exec: new k8s.Exec(config) };
}

/** The HTTP status of a failed API call (an `ApiException`), or undefined for anything else. */
export const statusCodeOf = (err: unknown): number | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
};

/** The API server's own words for a failed call (the `message` of its Status), else the error's. */
export function messageOf(err: unknown): string {
  const body = (err as { body?: unknown } | null)?.body;
  if (typeof body === 'string') {
    try {
      const status = JSON.parse(body) as { message?: unknown };
      if (typeof status.message === 'string') return status.message;
    } catch {
      // not a Status
    }
  }
  const code = statusCodeOf(err);
  return code !== undefined ? `the API server answered ${code}` : ((err as Error).message ?? String(err));
}
