import type Docker from 'dockerode';
import { SandboxError } from '../driver';
import { createDemuxer } from './demux';

export interface HelperSpec {
  name: string;
  image: string;
  /** `0:0` for the few fixed jobs that need root (a chown, firewall rules); never the user's commands. */
  user: string;
  cmd: string[];
  labels: Record<string, string>;
  /** Capabilities to add back after dropping all of them. */
  capAdd?: string[];
  networkMode: string;
  mounts?: Docker.MountConfig;
  /** What the job is, for the error message. */
  job: string;
}

/**
 * Runs a one-shot helper container to its end and answers its stdout: hardened like a sandbox (every
 * capability dropped except `capAdd`, no-new-privileges, read-only root), removed whatever happens. It
 * runs the fixed command it is given, never anything of the user's. A leftover of a crashed run of the
 * same name is removed first.
 */
export async function runHelper(docker: Docker, spec: HelperSpec): Promise<string> {
  await docker
    .getContainer(spec.name)
    .remove({ force: true })
    .catch(() => undefined);
  const helper = await docker.createContainer({
    name: spec.name,
    Image: spec.image,
    User: spec.user,
    Cmd: spec.cmd,
    Labels: spec.labels,
    HostConfig: {
      CapDrop: ['ALL'],
      CapAdd: spec.capAdd ?? [],
      SecurityOpt: ['no-new-privileges:true'],
      ReadonlyRootfs: true,
      NetworkMode: spec.networkMode,
      Tmpfs: { '/run': 'rw,nosuid,nodev,size=1m', '/tmp': 'rw,nosuid,nodev,size=1m' },
      ...(spec.mounts ? { Mounts: spec.mounts } : {}),
    },
  });
  try {
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    let stdout = '';
    let stderr = '';
    const demux = createDemuxer((text, stream) => (stream === 'stdout' ? (stdout += text) : (stderr += text)));
    demux.push((await helper.logs({ stdout: true, stderr: true, follow: false })) as Buffer);
    demux.end();
    if (StatusCode !== 0) throw new SandboxError('failed', `${spec.job} failed (exit ${StatusCode}): ${stderr.trim().slice(-500)}`);
    return stdout;
  } finally {
    await helper.remove({ force: true }).catch(() => undefined);
  }
}
