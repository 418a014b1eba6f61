import { PROJECT_NAME, STACK_DIRECTORY } from '../../agents/offline/stackPlace';
import type { ReleaseContainer } from '../../db/schema/releases';

/**
 * The read-only commands that describe a stack's live state, each shown to the person as it runs. The
 * same commands capture a release's baseline after `up` and check for drift later, so a release and a
 * drift check always compare like with like.
 */
export type { DriftKind } from '../../../shared/api/releases';

export interface ServerCheck {
  name: 'compose' | 'firewall' | 'cron' | 'disk';
  title: string;
  /** Runs on the server; reads only. */
  command: string;
}

/** Docker's rule for a compose project name, and a stack directory the shell may be given unquoted (stackPlace.ts). */
export { PROJECT_NAME, STACK_DIRECTORY };

export function serverChecks(project: string, directory: string): ServerCheck[] {
  if (!PROJECT_NAME.test(project)) throw new Error(`not a compose project name: ${project}`);
  if (!STACK_DIRECTORY.test(directory) || directory.split('/').includes('..')) throw new Error(`not a stack directory: ${directory}`);
  return [
    {
      name: 'compose',
      title: 'Containers, image digests and published ports of the stack',
      command: `ids=$(docker ps -aq --filter label=com.docker.compose.project=${project}); if [ -z "$ids" ]; then echo '[]'; else docker inspect $ids; fi`,
    },
    {
      name: 'firewall',
      title: 'Firewall rules',
      command: "if command -v ufw >/dev/null && sudo -n ufw status >/dev/null 2>&1; then sudo -n ufw status; elif sudo -n iptables -S >/dev/null 2>&1; then sudo -n iptables -S; else echo 'no firewall readable'; fi",
    },
    { name: 'cron', title: 'Scheduled jobs (crontab and /etc/cron.d)', command: "crontab -l 2>/dev/null || true; cat /etc/cron.d/* 2>/dev/null || true" },
    { name: 'disk', title: 'Free disk where the stack lives', command: `df -P -B1 ${directory}` },
  ];
}

interface Inspected {
  Image: string;
  Config: { Image: string; Labels?: Record<string, string> | null };
  State: { Status: string; Health?: { Status: string } | null };
  NetworkSettings: { Ports?: Record<string, { HostIp: string; HostPort: string }[] | null> | null };
}

export interface LiveContainer extends ReleaseContainer {
  state: string;
}

/** `docker inspect` output (a JSON array) → the stack's containers, sorted by service. */
export function parseInspect(output: string): LiveContainer[] {
  const parsed = JSON.parse(output) as Inspected[];
  return parsed
    .map((c) => ({
      service: c.Config.Labels?.['com.docker.compose.service'] ?? '?',
      image: c.Config.Image,
      digest: c.Image,
      ports: Object.entries(c.NetworkSettings.Ports ?? {})
        .flatMap(([inside, bound]) => (bound ?? []).map((b) => `${b.HostIp || '0.0.0.0'}:${b.HostPort}->${inside}`))
        .filter((p, i, all) => all.indexOf(p) === i && !p.startsWith('::'))
        .sort(),
      // A stopped container keeps its last health status ('unhealthy' once stopped): what it is now is its status.
      state: c.State.Status === 'running' ? (c.State.Health?.Status ?? 'running') : c.State.Status,
    }))
    .sort((a, b) => a.service.localeCompare(b.service));
}

/** Meaningful lines: comments, blanks and ufw's header decoration dropped, order kept out of it. */
export function ruleLines(output: string): string[] {
  return [...new Set(output.split('\n').map((l) => l.trim().replace(/\s+/g, ' ')).filter((l) => l && !l.startsWith('#') && !/^-+( -+)*$/.test(l)))].sort();
}

/**
 * Firewall rules the person owns: the chains Docker rewrites whenever any container starts or stops
 * (DOCKER, DOCKER-ISOLATION-*, forwarding to its bridges) are Docker's bookkeeping, not drift; the
 * DOCKER-USER chain is the person's and kept.
 */
export function firewallLines(output: string): string[] {
  return ruleLines(output).filter((l) => {
    const chain = /^-[AN] (\S+)/.exec(l)?.[1];
    if (chain && chain.startsWith('DOCKER') && chain !== 'DOCKER-USER') return false;
    return !/ -[io] (?:br-[0-9a-f]+|docker0)\b/.test(l);
  });
}

export interface DiskFree { available: number; size: number }

/** POSIX `df -P -B1`: the second line's size and available columns. */
export function parseDf(output: string): DiskFree {
  const row = output.trim().split('\n')[1]?.trim().split(/\s+/);
  if (!row || row.length < 6) throw new Error(`unexpected df output: ${output.slice(0, 200)}`);
  return { size: Number(row[1]), available: Number(row[3]) };
}
