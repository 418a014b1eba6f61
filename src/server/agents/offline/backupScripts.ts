import type { ServiceSpec } from '../catalogue/product';

/**
 * The off-server backup and its restore drill, as two scripts installed on the server by the deploy plan
 * (`/usr/local/sbin/stack-backup`, `/usr/local/sbin/stack-restore-drill`) and run by root: nightly from
 * cron, and on demand from the project home. What they cover comes from the catalogue's data, never from
 * product names: a service with a dump command is dumped (with its table row counts beside the dump), the
 * named volumes of the others are archived as files. restic encrypts and sends one snapshot per run to
 * the repository in /etc/stack-backup/env (an SFTP host, an S3-compatible store, or, when the person set
 * none, a folder on the server itself, which the result says).
 *
 * Each script ends with one line `STACK_BACKUP_RESULT <json>` (see shared/api/backups.ts) whether it
 * worked or not, and keeps it in /var/lib/stack-backup/last-<kind>.json, so a run from cron is read back by
 * the app (services/backups/backupWatch.ts) and repeated by the next drill.
 */

export const BACKUP_SCRIPT = '/usr/local/sbin/stack-backup';
export const DRILL_SCRIPT = '/usr/local/sbin/stack-restore-drill';
export const BACKUP_STATE = '/var/lib/stack-backup';

/**
 * Where one installed backup lives on the server: its settings folder, its state (repository when on the
 * server, cache, last results), its two scripts and its cron file. The deploy plan uses the defaults; a
 * test installs under paths of its own (`backupPaths('jest1234')`), so two runs on one server never
 * overwrite or remove each other's.
 */
export interface BackupPaths {
  etc: string;
  state: string;
  backupScript: string;
  drillScript: string;
  cron: string;
  /**
   * The folder of this stack's repository inside the destination the person chose (`<destination>/<name>`),
   * so two projects backing up to one host or bucket keep separate repositories; absent for the backup
   * installed before stacks had places of their own, whose repository is the destination itself.
   */
  repoName?: string;
}

export const DEFAULT_BACKUP_PATHS: BackupPaths = { etc: '/etc/stack-backup', state: BACKUP_STATE, backupScript: BACKUP_SCRIPT, drillScript: DRILL_SCRIPT, cron: '/etc/cron.d/stack-backup' };

/**
 * Paths with a suffix (a compose project name: letters, digits, `-` and `_`, as a cron.d file name must be,
 * which may hold no dot), or the defaults without one.
 */
export function backupPaths(suffix?: string): BackupPaths {
  if (!suffix) return DEFAULT_BACKUP_PATHS;
  if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(suffix)) throw new Error(`not a backup path suffix: ${suffix}`);
  return { etc: `/etc/stack-backup-${suffix}`, state: `/var/lib/stack-backup-${suffix}`, backupScript: `/usr/local/sbin/stack-backup-${suffix}`, drillScript: `/usr/local/sbin/stack-restore-drill-${suffix}`, cron: `/etc/cron.d/stack-backup-${suffix}`, repoName: suffix };
}

/** Everything an install puts on the server: what a test removes afterwards. */
export const installedPaths = (p: BackupPaths): string[] => [p.etc, p.state, p.backupScript, p.drillScript, p.cron];
/** The marker of a script's result line. */
export const RESULT_MARKER = 'STACK_BACKUP_RESULT';

/** What one run covers: a dump (with its restore declaration) or the files of a named volume. */
export type BackupSource =
  | { kind: 'dump'; service: string; dump: string; extension: string; tables?: string; restore?: { env: Record<string, string>; ready: string; load: string } }
  | { kind: 'files'; service: string; volume: string; path: string };

/** Where the stack is: its folder (with the compose file) and its compose project name; where its backup is installed (default: DEFAULT_BACKUP_PATHS). */
export interface StackPlace {
  dir: string;
  project: string;
  backup?: BackupPaths;
}

export const pathsOf = (place: StackPlace): BackupPaths => place.backup ?? DEFAULT_BACKUP_PATHS;

/**
 * The sources of a stack, from its services' catalogue data: a service with a dump is dumped; every named
 * volume of the others is archived once (the first service mounting it reads it); bind mounts (`./x`,
 * `/x`) are the stack's own files, copied by the plan, not data.
 */
export function backupSources(services: Pick<ServiceSpec, 'name' | 'volumes' | 'backup'>[]): BackupSource[] {
  const sources: BackupSource[] = [];
  const seen = new Set<string>();
  for (const s of services) {
    const named = (s.volumes ?? []).filter((v) => !/^[./]/.test(v)).map((v) => ({ volume: v.split(':')[0]!, path: v.split(':')[1]! }));
    const fresh = named.filter((v) => !seen.has(v.volume) && Boolean(seen.add(v.volume)));
    if (s.backup) sources.push({ kind: 'dump', service: s.name, ...s.backup });
    else for (const v of fresh) sources.push({ kind: 'files', service: s.name, volume: v.volume, path: v.path });
  }
  return sources;
}

/** A single-quoted shell word. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** File names in the snapshot: `dumps/<service>.<ext>` and `.tables`, `volumes/<volume>.tar` and `.count`. */
const dumpFile = (s: Extract<BackupSource, { kind: 'dump' }>): string => `dumps/${s.service}.${s.extension}`;

/** Shared beginning: root, the settings, Docker and Compose, the result line and the error trap. */
function prelude(kind: 'backup' | 'drill', place: StackPlace): string[] {
  const paths = pathsOf(place);
  return [
    '#!/bin/bash',
    // No space after '#': the plan's Markdown would read '# …' at a line's start as a heading ending the step.
    `#-- Written by the deploy plan (DevOps Agents): the ${kind === 'backup' ? 'backup' : 'restore drill'} of the stack in ${place.dir}.`,
    // -E: the ERR trap also fires in functions and subshells (set -e alone leaves them silently).
    'set -Eeuo pipefail',
    'umask 077',
    '[ "$(id -u)" = 0 ] || { echo "run as root (sudo)" >&2; exit 1; }',
    `state=${paths.state}`,
    'mkdir -p "$state"',
    // Until the settings are read: a run that fails on them still leaves its result for the app to read.
    'BACKUP_DESTINATION="unknown (the settings were not read)"',
    'r() { if [ -n "${RESTIC_SFTP_COMMAND:-}" ]; then restic -o "sftp.command=$RESTIC_SFTP_COMMAND" "$@"; else restic "$@"; fi; }',
    // JSON strings from bash: backslash, quote, newline and tab escaped, other control characters dropped.
    'json() { local s; s=$(printf \'%s\' "$1" | tr -d \'\\000-\\010\\013-\\037\'); s=${s//\\\\/\\\\\\\\}; s=${s//\\"/\\\\\\"}; s=${s//$\'\\n\'/\\\\n}; s=${s//$\'\\t\'/\\\\t}; printf \'"%s"\' "$s"; }',
    'started_at=$(date -u +%Y-%m-%dT%H:%M:%SZ); started=$SECONDS',
    // fd 3 is the script's own stdout: the ERR trap runs inside the failed command's redirections (`r check >/dev/null`).
    'exec 3>&1',
    'errlog=$(mktemp); exec 2> >(tee -a "$errlog" >&2)',
    'trap \'rm -f "$errlog" "$errlog.failed"\' EXIT',
    'step=starting',
    `result() { local line; line="{\\"kind\\":\\"${kind}\\",\\"ok\\":$1,\\"started_at\\":\\"$started_at\\",\\"seconds\\":$((SECONDS - started)),\\"destination\\":$(json "$BACKUP_DESTINATION"),$2}"; printf '%s\\n' "$line" > "$state/last-${kind}.json"; echo "${RESULT_MARKER} $line" >&3; }`,
    // Once per run: a failure in a subshell reaches the trap there and again in the script.
    'failed() { local rc=$?; trap - ERR; [ ! -e "$errlog.failed" ] || exit "$rc"; : > "$errlog.failed"; sleep 0.2; result false "\\"step\\":$(json "$step"),\\"detail\\":$(json "$(tail -n 8 "$errlog")")"; exit "$rc"; }',
    'trap failed ERR',
    'step="read the settings"',
    // Tested first: bash leaves at once, trap or not, when `.` finds no file.
    `[ -r ${paths.etc}/env ] || { echo "${paths.etc}/env is missing: execute the plan's backup step again" >&2; false; }`,
    `. ${paths.etc}/env`,
    'step="find the stack and Docker"',
    `cd ${shellQuote(place.dir)} || false`,
    // Root: Docker without sudo; Compose v2 or v1, whichever the server has.
    'docker info >/dev/null 2>&1 || { echo "Docker Engine is not running on the server" >&2; false; }',
    'if docker compose version >/dev/null 2>&1; then compose() { docker compose "$@"; }; elif command -v docker-compose >/dev/null 2>&1; then compose() { docker-compose "$@"; }; else echo "Docker Compose is not installed on the server" >&2; false; fi',
    `export COMPOSE_PROJECT_NAME=${shellQuote(place.project)}`,
  ];
}

/** The backup: dumps and archives into a staging folder, one restic snapshot of it, old snapshots forgotten. */
export function backupScript(sources: BackupSource[], place: StackPlace): string {
  const lines = [
    ...prelude('backup', place),
    'stage="$state/stage"',
    'rm -rf "$stage"; mkdir -p "$stage/dumps" "$stage/volumes"',
  ];
  for (const s of sources) {
    if (s.kind === 'dump') {
      lines.push(
        `step=${shellQuote(`dump of ${s.service}`)}`,
        `compose exec -T ${s.service} sh -c ${shellQuote(s.dump)} > "$stage/${dumpFile(s)}"`,
        `[ -s "$stage/${dumpFile(s)}" ] || { echo "the dump of ${s.service} is empty" >&2; false; }`,
      );
      if (s.tables) lines.push(`step=${shellQuote(`row counts of ${s.service}`)}`, `compose exec -T ${s.service} sh -c ${shellQuote(s.tables)} | LC_ALL=C sort > "$stage/dumps/${s.service}.tables"`);
    } else {
      lines.push(
        `step=${shellQuote(`files of volume ${s.volume} (${s.service})`)}`,
        `compose exec -T ${s.service} tar -C ${shellQuote(s.path)} -cf - . > "$stage/volumes/${s.volume}.tar"`,
        `tar -tf "$stage/volumes/${s.volume}.tar" | grep -vc '/$' > "$stage/volumes/${s.volume}.count" || true`,
      );
    }
  }
  lines.push(
    'step="open the repository"',
    // A repository that does not answer "cat config" yet is made; a wrong password or an unreachable host fails here with restic's words.
    'if ! r cat config >/dev/null 2>"$state/open.err"; then',
    '  if grep -qiE "does not exist|no such file|not found|unable to open config" "$state/open.err"; then r init --repository-version 2 >/dev/null; else cat "$state/open.err" >&2; false; fi',
    'fi',
    'step="restic backup"',
    '(cd "$stage" && r backup --json --host "$BACKUP_HOST" --tag stack .) > "$state/backup.out"',
    // restic's own summary line (JSON) goes into the result as it is: the app reads the snapshot and sizes from it with a JSON parser.
    'summary=$(grep \'^{"message_type":"summary"\' "$state/backup.out" | tail -n 1 || true)',
    '[ -n "$summary" ] || { tail -n 5 "$state/backup.out" >&2; echo "restic printed no summary of the backup" >&2; false; }',
    'step="forget snapshots older than the retention"',
    'r forget --host "$BACKUP_HOST" --tag stack --keep-within "${KEEP_DAYS}d" --keep-last 1 --prune >/dev/null',
    'rm -rf "$stage"',
    `result true "\\"restic\\":$summary,\\"sources\\":${sources.length}"`,
  );
  return lines.join('\n') + '\n';
}

/**
 * The restore drill: `restic check`, the latest snapshot restored into a temporary folder, each dump with
 * a restore declaration loaded into a throwaway container of the live service's own image (own compose
 * project label, own internal network, no published ports: the live stack is never touched), its tables
 * and row counts compared with those recorded at backup time, and each volume archive read whole with its
 * file count compared. Everything it made is removed on exit, whatever happened.
 */
export function drillScript(sources: BackupSource[], place: StackPlace): string {
  const drill = `${place.project}-drill`;
  const lines = [
    ...prelude('drill', place),
    `drill=${drill}`,
    'work=$(mktemp -d "$state/drill.XXXXXX")',
    'cleanup() { ids=$(docker ps -aq --filter "label=com.docker.compose.project=$drill"); [ -z "$ids" ] || docker rm -f -v $ids >/dev/null; docker network rm "$drill" >/dev/null 2>&1 || true; rm -rf "$work" "$errlog" "$errlog.failed"; }',
    'trap cleanup EXIT',
    'cleanup_left() { ids=$(docker ps -aq --filter "label=com.docker.compose.project=$drill"); [ -z "$ids" ] || docker rm -f -v $ids >/dev/null; docker network rm "$drill" >/dev/null 2>&1 || true; }',
    'cleanup_left',
    'checks=""',
    'add_check() { checks="${checks:+$checks,}$1"; }',
    'step="check the repository (restic check)"',
    'r check >/dev/null',
    'step="restore the latest snapshot"',
    'r snapshots --host "$BACKUP_HOST" --tag stack --latest 1 --json > "$work/snapshots.json"',
    'snapshot=$(grep -o \'"short_id":"[0-9a-f]*"\' "$work/snapshots.json" | tail -n 1 | cut -d\'"\' -f4)',
    '[ -n "$snapshot" ] || { echo "the repository holds no backup of this stack yet" >&2; false; }',
    'mkdir -p "$work/restored"',
    'r restore "$snapshot" --target "$work/restored" >/dev/null',
    'bytes=$(du -sb "$work/restored" | cut -f1)',
    'docker network create --internal --label "com.docker.compose.project=$drill" "$drill" >/dev/null',
  ];
  for (const s of sources) {
    if (s.kind === 'dump') {
      const file = `"$work/restored/${dumpFile(s)}"`;
      lines.push(`step=${shellQuote(`the dump of ${s.service} in the snapshot`)}`, `[ -s ${file} ] || { echo "the snapshot has no dump of ${s.service}" >&2; false; }`);
      if (!s.restore) {
        lines.push(`add_check "{\\"what\\":\\"${s.service}\\",\\"ok\\":true,\\"note\\":\\"dump present ($(du -h ${file} | cut -f1)); the catalogue declares no way to load it, so it was not loaded\\"}"`);
        continue;
      }
      const container = `"$drill-${s.service}"`;
      const env = Object.entries(s.restore.env).map(([k, v]) => `-e ${shellQuote(`${k}=${v}`)}`).join(' ');
      lines.push(
        `step=${shellQuote(`start a throwaway ${s.service}`)}`,
        `live=$(compose ps -q ${s.service} | head -n 1)`,
        `[ -n "$live" ] || { echo "${s.service} has no container on the server to take its image from" >&2; false; }`,
        'image=$(docker inspect -f \'{{.Config.Image}}\' "$live")',
        `docker run -d --name ${container} --network "$drill" --label "com.docker.compose.project=$drill" ${env} "$image" >/dev/null`,
        `for i in $(seq 1 120); do if docker exec ${container} sh -c ${shellQuote(s.restore.ready)} >/dev/null 2>&1; then break; fi; if [ "$i" = 120 ] || [ "$(docker inspect -f '{{.State.Running}}' ${container})" != true ]; then docker logs --tail 20 ${container} >&2; echo "the throwaway ${s.service} stopped, or did not answer in 120 s" >&2; false; fi; sleep 1; done`,
        `step=${shellQuote(`load the dump into the throwaway ${s.service}`)}`,
        `docker exec -i ${container} sh -c ${shellQuote(s.restore.load)} < ${file} > "$work/${s.service}.load" 2>&1`,
        `load_errors=$(grep -c 'ERROR' "$work/${s.service}.load" || true)`,
      );
      if (s.tables) {
        lines.push(
          `step=${shellQuote(`count the tables and rows of the restored ${s.service}`)}`,
          `docker exec ${container} sh -c ${shellQuote(s.tables)} | LC_ALL=C sort > "$work/${s.service}.restored"`,
          `tables=$(grep -c . "$work/${s.service}.restored" || true); rows=$(awk '{ n += $NF } END { print n + 0 }' "$work/${s.service}.restored")`,
          `if ! diff "$work/restored/dumps/${s.service}.tables" "$work/${s.service}.restored" > "$work/${s.service}.diff"; then grep -E '^[<>]' "$work/${s.service}.diff" | head -n 5 >&2; echo "${s.service}: the restored tables and row counts differ from those at backup time (< at backup, > restored)" >&2; false; fi`,
          `[ "$tables" -gt 0 ] || echo "${s.service}: the backup holds no table" >&2`,
          `add_check "{\\"what\\":\\"${s.service}\\",\\"ok\\":true,\\"tables\\":$tables,\\"rows\\":$rows,\\"load_errors\\":$load_errors}"`,
        );
      } else {
        lines.push(`add_check "{\\"what\\":\\"${s.service}\\",\\"ok\\":true,\\"load_errors\\":$load_errors,\\"note\\":\\"loaded; the catalogue declares no table count to compare\\"}"`);
      }
    } else {
      const tar = `"$work/restored/volumes/${s.volume}.tar"`;
      lines.push(
        `step=${shellQuote(`the files of volume ${s.volume}`)}`,
        `[ -f ${tar} ] || { echo "the snapshot has no archive of volume ${s.volume}" >&2; false; }`,
        `files=$(tar -tf ${tar} | grep -vc '/$' || true)`,
        `expected=$(cat "$work/restored/volumes/${s.volume}.count")`,
        `[ "$files" = "$expected" ] || { echo "volume ${s.volume}: $files files restored, $expected at backup time" >&2; false; }`,
        `add_check "{\\"what\\":\\"volume ${s.volume}\\",\\"ok\\":true,\\"files\\":$files}"`,
      );
    }
  }
  lines.push(
    `result true "\\"restic_snapshots\\":$(cat "$work/snapshots.json"),\\"bytes\\":$bytes,\\"checks\\":[$checks],\\"last_backup\\":$(cat "$state/last-backup.json" 2>/dev/null || echo null)"`,
  );
  return lines.join('\n') + '\n';
}
