import type { ProductCategory } from '../catalogue/product';
import { productOf } from './catalogueKnowledge';
import type { ComposeModel } from './composeModel';
import type { Finding, PlanStepScript } from './types';

/**
 * Backups: every named volume (the stack's state) is covered by a step that backs it up, either a dump
 * run in the service that mounts it (`compose exec -T postgres pg_dump …`) or an archive of the volume
 * itself (tar, restic, borg, rsync… naming the volume). Volumes of proxies and caches hold what can be
 * made again (certificates, cached data): a missing backup is a warning there, an error elsewhere.
 */

const DUMPS = ['pg_dump', 'pg_dumpall', 'pg_basebackup', 'mysqldump', 'mariadb-dump', 'mariabackup', 'mongodump', 'sqlite3', 'redis-cli', 'influx', 'tar', 'restic', 'borg', 'kopia'];
const ARCHIVERS = ['tar', 'restic', 'borg', 'rsync', 'rclone', 'kopia', 'duplicity', 'cp'];
/** Categories whose products' data is rebuilt, not restored: a proxy's certificates, a cache. */
const REGENERABLE = new Set<ProductCategory>(['proxy', 'cache']);


const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A word of a script, allowing Compose's `<project>_` prefix on volume names. */
const mentions = (script: string, word: string, prefixed = false): boolean =>
  new RegExp(`(^|[^A-Za-z0-9_-])${prefixed ? '([A-Za-z0-9-]+_)?' : ''}${escape(word)}($|[^A-Za-z0-9_-])`).test(script);

export function backupFindings(compose: ComposeModel, steps: PlanStepScript[], skip: string[] = []): Finding[] {
  if (!steps.length) return [];
  const findings: Finding[] = [];
  const usedBy = new Map<string, string[]>();
  for (const s of compose.services) for (const m of s.mounts) if (m.named && m.source) usedBy.set(m.source, [...(usedBy.get(m.source) ?? []), s.name]);
  for (const [volume, services] of usedBy) {
    const covered = steps.some(({ script }) => {
      const archived = mentions(script, volume, true) && ARCHIVERS.some((a) => mentions(script, a));
      const dumped = /\bexec\b/.test(script) && services.some((svc) => mentions(script, svc)) && DUMPS.some((d) => mentions(script, d));
      return archived || dumped;
    });
    // The person said not to back these up: said, not blocked.
    const skipped = services.every((name) => skip.includes(name));
    if (covered || skipped) continue;
    const regenerable = services.every((name) => {
      const svc = compose.services.find((x) => x.name === name)!;
      const category = productOf(svc)?.category;
      return category !== undefined && REGENERABLE.has(category);
    });
    findings.push({
      severity: regenerable ? 'warning' : 'error',
      code: 'volume-not-backed-up',
      message: regenerable
        ? `volume ${volume} (${services.join(', ')}) is in no backup; what it holds can be made again, but a restore takes longer without it`
        : `volume ${volume} holds the data of ${services.join(', ')} and no step backs it up: a lost disk loses it`,
      where: `docker-compose.yml volumes.${volume}`,
    });
  }
  return findings;
}
