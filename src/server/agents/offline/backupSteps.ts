import type { SecretSpec } from '../catalogue/product';
import type { PlanStep } from './plannerTypes';
import { emptyStackModel } from '../../../shared/stackModel';
import { destinationText, placeOf, secretsOfPlace } from '../../../shared/backupDestination';
import { backupScript, DEFAULT_BACKUP_PATHS, drillScript, installedPaths, pathsOf, shellQuote, type BackupSource, type StackPlace } from './backupScripts';
import { remote } from './remoteShell';

/**
 * The deploy plan's backup step: restic on the server (installed with its package manager when missing),
 * the destination and password from User Secrets written root-only to /etc/stack-backup (or the paths a
 * test gives, see BackupPaths), the backup and restore-drill scripts (backupScripts.ts), a nightly cron
 * entry, and a first backup run now, so the step fails when the destination does not take it.
 */

/**
 * The User Secrets the backup reads. The destination itself is the stack model's (`backup.destination`,
 * chosen by the person); these are what opens it. All optional here: the step names the one its
 * destination needs when it is missing.
 */
export const BACKUP_SECRETS: SecretSpec[] = [
  { name: 'BACKUP_PASSWORD', description: 'Password that encrypts the backups (restic); keep a copy: without it nothing can be restored', required: false, secret_type: 'password' },
  { name: 'BACKUP_SSH_KEY', description: 'Private SSH key allowed on the backup host (sftp destination)', required: false, secret_type: 'ssh_private_key' },
  // Not AWS_ACCESS_KEY_ID: a plan on AWS holds the keys that create the machine under that name, and the backup gets keys of its own.
  { name: 'BACKUP_S3_ACCESS_KEY_ID', description: 'Access key of the S3-compatible store the backups go to (s3 destination)', required: false, secret_type: 'text' },
  { name: 'BACKUP_S3_SECRET_ACCESS_KEY', description: 'Secret key of the S3-compatible store the backups go to (s3 destination)', required: false, secret_type: 'password' },
];

/**
 * The User Secrets the requirements list for a destination, required: BACKUP_PASSWORD and what opens it.
 * None without a destination: the password is then generated on the server, where the backups stay.
 */
export function backupSecretsFor(destination: string | undefined): SecretSpec[] {
  const place = destination ? placeOf(destination) : undefined;
  if (!place) return [];
  const names = new Set(['BACKUP_PASSWORD', ...secretsOfPlace(place)]);
  return BACKUP_SECRETS.filter((s) => names.has(s.name)).map((s) => ({ ...s, required: true }));
}

/** What the stack model says of backups: when, how long, and where (absent: no destination chosen). */
export interface BackupSettings {
  schedule: string;
  keepDays: number;
  destination?: string | undefined;
}

const SECRET_NAMES = BACKUP_SECRETS.map((s) => s.name);

/** Everything the plan's step installs on the server (settings, state and repository kept there, scripts, schedule). */
export const BACKUP_INSTALLED_PATHS = installedPaths(DEFAULT_BACKUP_PATHS);

/** A file written as root from a quoted here-document (nothing in it is expanded). */
function rootFile(path: string, mode: string, content: string): string {
  let tag = 'FILE';
  while (content.includes(tag)) tag += '_';
  return `as_root install -m ${mode} /dev/null ${path}\nas_root tee ${path} > /dev/null <<'${tag}'\n${content.trimEnd()}\n${tag}`;
}

/**
 * Remote (as the deploy user, sudo where needed): the settings of the backup from the secrets, checked
 * and written root-only. The secrets travel as the step's environment (never echoed); what is printed is
 * where the backups go, without credentials.
 */
export function installBackupScript(sources: BackupSource[], place: StackPlace, settings: BackupSettings): string {
  const { schedule, keepDays } = settings;
  const { etc, state, backupScript: script, drillScript: drill, cron, repoName } = pathsOf(place);
  return [
    'if [ "$(id -u)" = 0 ]; then as_root() { "$@"; }; elif sudo -n true 2>/dev/null; then as_root() { sudo "$@"; }; else echo "this user has no password-less sudo: the backup runs as root" >&2; exit 1; fi',
    'if ! command -v restic >/dev/null 2>&1; then',
    '  echo "restic: missing, installing it"',
    '  if command -v apt-get >/dev/null 2>&1; then as_root apt-get update -q >/dev/null && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -yq restic >/dev/null',
    '  elif command -v dnf >/dev/null 2>&1; then as_root dnf install -y restic',
    '  elif command -v apk >/dev/null 2>&1; then as_root apk add restic',
    '  else echo "restic is not installed and this server has no package manager the plan knows: install restic, then re-execute this step" >&2; exit 1; fi',
    'fi',
    'echo "restic: $(restic version | cut -d" " -f2)"',
    `as_root install -d -m 700 ${etc} ${state}`,
    `repo=${shellQuote(settings.destination ?? '')} sftp_cmd=`,
    'case "$repo" in',
    `  '') repo=${state}/repo; dest="this server's own disk (${state}/repo)"`,
    '     echo "WARNING: no backup destination is chosen, so the backups stay on this server: a lost server takes them with it. Choose where they go (an SSH host or an S3-compatible store) and re-execute this step." ;;',
    '  sftp://*) rest=${repo#sftp://}; login=${rest%%/*}; path=/${rest#*/}; path=${path#/}',
    '     hostport=${login#*@}; user=; [ "$login" = "$hostport" ] || user=${login%@*}; host=${hostport%:*}; port=22; [ "$host" = "$hostport" ] || port=${hostport##*:} ;;',
    '  sftp:*) rest=${repo#sftp:}; login=${rest%%:*}; path=${rest#*:}; host=${login#*@}; user=; [ "$login" = "$host" ] || user=${login%@*}; port=22 ;;',
    '  s3:*) dest="S3-compatible store ${repo#s3:}"',
    '     [ -n "${BACKUP_S3_ACCESS_KEY_ID:-}" ] && [ -n "${BACKUP_S3_SECRET_ACCESS_KEY:-}" ] || { echo "an s3 destination needs the User Secrets BACKUP_S3_ACCESS_KEY_ID and BACKUP_S3_SECRET_ACCESS_KEY" >&2; exit 1; } ;;',
    '  *) echo "the backup destination must start with sftp: or s3:" >&2; exit 1 ;;',
    'esac',
    // This stack's own repository inside the destination: another project backing up there keeps its own.
    ...(repoName ? [`if [ "$repo" != ${state}/repo ]; then repo=\${repo%/}/${repoName}; path=\${path:+\${path%/}/${repoName}}; fi`] : []),
    'if [ "${repo#sftp}" != "$repo" ]; then',
    '  [ -n "$host" ] && [ -n "$path" ] || { echo "the backup destination has no host or path (sftp:user@host:/path)" >&2; exit 1; }',
    '  case "$port" in ""|*[!0-9]*) echo "the backup destination\'s port is not a number" >&2; exit 1 ;; esac',
    '  [ -n "${BACKUP_SSH_KEY:-}" ] || { echo "an sftp destination needs the User Secret BACKUP_SSH_KEY (a private key the backup host accepts)" >&2; exit 1; }',
    `  printf '%s\\n' "$BACKUP_SSH_KEY" | as_root install -m 600 /dev/stdin ${etc}/ssh_key`,
    `  as_root touch ${etc}/known_hosts`,
    // The backup host's key is pinned on first contact and any other refused afterwards, as for the server itself.
    `  sftp_cmd="ssh -i ${etc}/ssh_key -o IdentitiesOnly=yes -o UserKnownHostsFile=${etc}/known_hosts -o StrictHostKeyChecking=accept-new -o BatchMode=yes -o ConnectTimeout=20 -o ServerAliveInterval=15 -p $port \${user:+-l $user} $host -s sftp"`,
    '  dest="SSH host ${user:+$user@}$host port $port, $path"',
    'fi',
    `if [ -n "\${BACKUP_PASSWORD:-}" ]; then printf '%s' "$BACKUP_PASSWORD" | as_root install -m 600 /dev/stdin ${etc}/password`,
    `elif ! as_root test -s ${etc}/password; then`,
    `  if [ "$repo" != ${state}/repo ]; then echo "set the User Secret BACKUP_PASSWORD: it encrypts the backups, and a copy you hold is the only way to restore them once the server is gone" >&2; exit 1; fi`,
    `  head -c 32 /dev/urandom | base64 | as_root install -m 600 /dev/stdin ${etc}/password`,
    `  echo "a backup password was generated and kept on the server only (${etc}/password)"`,
    'fi',
    // The settings file: every value quoted by printf %q, readable by root only.
    '{',
    '  printf \'export RESTIC_REPOSITORY=%q\\n\' "$repo"',
    `  echo "export RESTIC_PASSWORD_FILE=${etc}/password"`,
    `  echo "export RESTIC_CACHE_DIR=${state}/cache"`,
    '  printf \'RESTIC_SFTP_COMMAND=%q\\n\' "$sftp_cmd"',
    '  printf \'BACKUP_DESTINATION=%q\\n\' "$dest"',
    '  printf \'BACKUP_HOST=%q\\n\' "$(hostname)"',
    `  echo "KEEP_DAYS=${keepDays}"`,
    // restic reads the store's keys as AWS_*: written under those names into the root-only settings file.
    '  if [ -n "${BACKUP_S3_ACCESS_KEY_ID:-}" ]; then printf \'export AWS_ACCESS_KEY_ID=%q\\nexport AWS_SECRET_ACCESS_KEY=%q\\n\' "$BACKUP_S3_ACCESS_KEY_ID" "${BACKUP_S3_SECRET_ACCESS_KEY:-}"; fi',
    `} | as_root install -m 600 /dev/stdin ${etc}/env`,
    rootFile(script, '700', backupScript(sources, place)),
    rootFile(drill, '700', drillScript(sources, place)),
    rootFile(cron, '644', `${schedule} root ${script} >/dev/null 2>&1`),
    `echo "backups go to: $dest (nightly at cron \\"$(cut -d" " -f1-5 ${cron})\\", kept ${keepDays} days)"`,
    'echo "first backup:"',
    `as_root ${script}`,
  ].join('\n');
}

/**
 * The step: the settings from the secrets, the scripts, the schedule and a first backup. Its title and
 * description say where the backups go; without a destination they say plainly that the backups stay on
 * the server, and claim nothing off it.
 */
export function backupStep(sources: BackupSource[], place: StackPlace, settings: BackupSettings = emptyStackModel().backup): PlanStep {
  const { keepDays, destination } = settings;
  const { state } = pathsOf(place);
  const covered = sources.map(coveredInWords);
  const script = installBackupScript(sources, place, settings);
  const where = destinationInWords(destination, state);
  const drill = 'installs the restore drill, which restores the latest backup into throwaway containers and checks it';
  return destination
    ? {
        title: 'Back up off the server, encrypted (restic)',
        description: `Backs up ${covered.join(', ')} with restic, encrypted with the User Secret BACKUP_PASSWORD, to ${where}, nightly and once now, keeping ${keepDays} days; ${drill}.`,
        commands: [remoteWithOptional(script, SECRET_NAMES)],
      }
    : {
        title: 'Back up on the server only, encrypted (restic): no destination chosen',
        description: `No backup destination is chosen, so these backups stay on the server's own disk and are lost with it: not off-server backups. Backs up ${covered.join(', ')} with restic, encrypted, to ${state}/repo on the server, nightly and once now, keeping ${keepDays} days; ${drill}. Choose a destination (an SSH host or an S3-compatible store) to send them off the server.`,
        commands: [remoteWithOptional(script, SECRET_NAMES)],
      };
}

/** What a dump source's drill does with it, in words: loaded and counted, or only found (the catalogue declares no way to load it). */
const coveredInWords = (s: BackupSource): string =>
  s.kind === 'files' ? `volume ${s.volume} (its files, counted again by the drill)` : s.restore ? `${s.service} (a dump, loaded again by the drill${s.tables ? ' and its tables and rows compared' : ''})` : `${s.service} (a dump; the drill only finds it in the backup: the catalogue declares no way to load it, so its restore is not proven)`;

/**
 * The requirements' and architecture's line on backups (undefined when nothing is backed up): where they
 * go and what opens them, or, without a destination, that they stay on the server and how to choose one.
 */
export function backupLine(sources: BackupSource[], settings: BackupSettings): string | undefined {
  if (!sources.length) return undefined;
  const covered = sources.map(coveredInWords).join(', ');
  if (!settings.destination) {
    return `${BACKUP_LINE_PREFIX} nightly restic snapshots (restic encrypts them) of ${covered}, kept ${settings.keepDays} days on the server's own disk only: no destination is chosen, so they are lost with the server. Say where they go ("back up to user@backup-host" over SSH, or "back up to S3 bucket NAME at endpoint https://…"), or set it under Backups in the Collected Requirements`;
  }
  const secrets = backupSecretsFor(settings.destination).map((s) => s.name);
  return `${BACKUP_LINE_PREFIX} nightly restic snapshots (restic encrypts them) of ${covered}, to ${destinationInWords(settings.destination)}, kept ${settings.keepDays} days; opened with the User Secrets ${secrets.join(', ')}`;
}

/** Where a destination is, in words, without credentials (an S3 URL may carry none; an sftp one names the login). */
export function destinationInWords(destination: string | undefined, state = DEFAULT_BACKUP_PATHS.state): string {
  if (!destination) return `the server's own disk (${state}/repo)`;
  return destinationText(destination);
}

/** How the documents' line on backups starts: read back from a document, it is skipped (its host is not the deploy server). */
export const BACKUP_LINE_PREFIX = 'Backups:';

/** Like `remote`, for optional secrets: an unset one travels as an empty value instead of stopping `set -u`. */
function remoteWithOptional(script: string, env: string[]): string {
  return [...env.map((e) => `: "\${${e}:=}"`), remote(script, env)].join('\n');
}
