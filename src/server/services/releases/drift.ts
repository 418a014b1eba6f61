import type { ReleaseContainer } from '../../db/schema/releases';
import type { DriftDifference } from '../../../shared/api/releases';
import type { DiskFree, DriftKind, LiveContainer } from './serverChecks';

export interface ReleaseBaseline {
  containers: ReleaseContainer[];
  baseline: { firewall: string[]; cron: string[] };
}

export interface LiveState {
  containers: LiveContainer[];
  firewall: string[];
  cron: string[];
  disk: DiskFree;
}

/** What differs, in words, naming the service or rule. */
export type Difference = DriftDifference;

/** Below either bound the disk is reported: a full disk stops PostgreSQL and the backups first. */
export const DISK_MIN_FREE_BYTES = 1024 ** 3;
export const DISK_MIN_FREE_RATIO = 0.1;

const RUNNING = new Set(['running', 'healthy']);

/** A size in words: GiB with one decimal from 1 GiB, whole MiB below (a small disk reads as 0.0 GiB otherwise). */
const bytes = (n: number): string => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(n / 1024 ** 2)} MiB`);

function setDiff(kind: DriftKind, what: string, expected: string[], live: string[]): Difference[] {
  const have = new Set(live);
  const want = new Set(expected);
  return [
    ...expected.filter((l) => !have.has(l)).map((l) => ({ kind, detail: `${what} missing on the server: ${l}` })),
    ...live.filter((l) => !want.has(l)).map((l) => ({ kind, detail: `${what} added on the server: ${l}` })),
  ];
}

/** The live server against the last release: every kind compared, so nothing differs silently. */
export function compareToRelease(release: ReleaseBaseline, live: LiveState): Difference[] {
  const out: Difference[] = [];
  const liveBy = new Map(live.containers.map((c) => [c.service, c]));
  const releaseBy = new Map(release.containers.map((c) => [c.service, c]));
  for (const r of release.containers) {
    const l = liveBy.get(r.service);
    if (!l) {
      out.push({ kind: 'containers', detail: `${r.service}: no container (the release ran ${r.image})` });
      continue;
    }
    // A task that runs once had exited when the release was recorded: only a running service stopping is drift.
    if (!RUNNING.has(l.state) && (r.state === undefined || RUNNING.has(r.state))) out.push({ kind: 'containers', detail: `${r.service}: ${l.state}, the release had it running` });
    if (l.digest !== r.digest) out.push({ kind: 'images', detail: `${r.service}: runs ${l.image} (${l.digest.slice(0, 19)}), the release ran ${r.image} (${r.digest.slice(0, 19)})` });
    out.push(...setDiff('ports', `${r.service} published port`, r.ports, l.ports));
  }
  for (const l of live.containers) {
    if (!releaseBy.has(l.service)) out.push({ kind: 'containers', detail: `${l.service}: a container the release does not have (${l.image}, ${l.state})` });
  }
  out.push(...setDiff('firewall', 'firewall rule', release.baseline.firewall, live.firewall));
  out.push(...setDiff('cron', 'cron entry', release.baseline.cron, live.cron));
  const { available, size } = live.disk;
  if (available < DISK_MIN_FREE_BYTES || available < size * DISK_MIN_FREE_RATIO) {
    out.push({ kind: 'disk', detail: `${bytes(available)} free of ${bytes(size)} (${Math.floor((available / size) * 100)}%) where the stack lives: below ${bytes(DISK_MIN_FREE_BYTES)} or ${DISK_MIN_FREE_RATIO * 100}% free` });
  }
  return out;
}
