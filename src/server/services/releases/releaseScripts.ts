import YAML from 'yaml';
import { DETECT_DOCKER } from '../../agents/offline/remoteShell';
import { oneShotServices } from '../../agents/offline/oneShot';
import { FAILED_CHANGE, LAST_HEALTHY } from '../../agents/offline/releaseGate';
import { PROJECT_NAME, STACK_DIRECTORY } from './serverChecks';

/**
 * "Roll back" as a server-side script: a chosen release's files written over the stack, brought up, and
 * a bounded health gate. It is a step command: the person approves it before it runs and sees its output.
 * (A change is applied by the deploy's own start step, agents/offline/releaseGate.ts.)
 */

export interface ReleaseFiles {
  number: number;
  files: Record<string, string>;
}

const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

/** Services whose compose definition differs (added or changed); a removed one needs no gate. */
export function changedServices(previousCompose: string | undefined, nextCompose: string): string[] {
  const services = (text: string | undefined): Record<string, unknown> => ((text ? (YAML.parse(text) as { services?: Record<string, unknown> }) : undefined)?.services ?? {});
  const before = services(previousCompose);
  const after = services(nextCompose);
  return Object.keys(after)
    .filter((s) => JSON.stringify(after[s]) !== JSON.stringify(before[s]))
    .sort();
}

function check(options: { project: string; directory: string }, files: Record<string, string>[]): void {
  if (!PROJECT_NAME.test(options.project)) throw new Error(`not a compose project name: ${options.project}`);
  if (!STACK_DIRECTORY.test(options.directory)) throw new Error(`not a stack directory: ${options.directory}`);
  for (const f of files.flatMap((x) => Object.keys(x))) if (!FILE_NAME.test(f) || f.split('/').includes('..')) throw new Error(`not a stack file name: ${f}`);
}

const PRELUDE = [
  'set -euo pipefail',
  // docker and compose as the deploy's steps find them (sudo or not, Compose v2 or v1)
  DETECT_DOCKER,
  'dc() { compose "$@"; }',
  // `status exitcode health` of a service's container (`-a`: Compose v2 lists stopped containers only then)
  'state() { local id; id=$(dc -p "$P" ps -a -q "$1" 2>/dev/null | head -n1 || true); [ -n "$id" ] || { echo missing; return; }; docker inspect -f \'{{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}\' "$id"; }',
  // Healthy when the health check says so, or running when the service has none; a service that runs once
  // ($ONCE, from the release's compose file: oneShot.ts) is done when it exited 0 (waited for while it runs) and fails the gate at once on another code.
  'gate() { local until=$(( $(date +%s) + $1 )); shift; local s st bad; while :; do bad=""; for s in "$@"; do st=$(state "$s"); case " $ONCE " in *" $s "*) case "$st" in "exited 0 "*) continue ;; exited*|dead*) echo "$s runs once and exited with code $(cut -d" " -f2 <<<"$st")"; return 1 ;; *) bad="$bad $s($st)"; continue ;; esac ;; esac; case "$st" in *" healthy"|"running "*" none") ;; *) bad="$bad $s($st)" ;; esac; done; [ -z "$bad" ] && return 0; [ "$(date +%s)" -ge "$until" ] && { echo "not healthy in time:$bad"; return 1; }; sleep 2; done; }',
];

/** Writes exactly a release's files (base64, so no text can end a here-document) and removes files of other releases. */
function writeFiles(release: ReleaseFiles, known: string[]): string[] {
  const stale = known.filter((f) => !(f in release.files));
  return [
    `mkdir -p "$D"`,
    ...stale.map((f) => `rm -f "$D/${f}"`),
    ...Object.entries(release.files).map(([f, text]) => `mkdir -p "$(dirname "$D/${f}")" && printf '%s' '${Buffer.from(text).toString('base64')}' | base64 -d > "$D/${f}"`),
  ];
}

/** As the start step's gate keeps a release that passed (releaseGate.ts): its files, and its tasks that run once beside them. */
function keepAsLastHealthy(files: string[], once: string[]): string[] {
  return [
    `last="$D/${LAST_HEALTHY}"`,
    'rm -rf "$last.new" && mkdir -p "$last.new"',
    `for f in ${[...new Set(files)].join(' ')}; do if [ -f "$D/$f" ]; then mkdir -p "$last.new/$(dirname "$f")" && cp -p "$D/$f" "$last.new/$f"; fi; done`,
    `printf '%s\\n' '${once.join('|')}' > "$last.one-shot.new"`,
    'rm -rf "$last" && mv "$last.new" "$last" && mv "$last.one-shot.new" "$last.one-shot"',
  ];
}

/** "Roll back": restore a chosen release's files over whatever is there, up, and wait for it to be healthy. */
export function rollbackScript(o: { project: string; directory: string; target: ReleaseFiles; current?: ReleaseFiles; composeFile?: string; gateSeconds: number }): string {
  check(o, [o.target.files, o.current?.files ?? {}]);
  const compose = o.composeFile ?? 'docker-compose.yml';
  const services = changedServices(undefined, o.target.files[compose] ?? '');
  const once = oneShotServices(o.target.files[compose]);
  return [
    ...PRELUDE,
    `P=${o.project}; D=${o.directory}; ONCE='${once.join(' ')}'`,
    ...writeFiles(o.target, [...new Set([...Object.keys(o.target.files), ...Object.keys(o.current?.files ?? {})])]),
    // The release chosen replaces any change kept after a failed gate: "Start the stack" run again must not bring it back.
    `rm -rf "$D/${FAILED_CHANGE}"`,
    `cd "$D" && dc -p "$P" -f ${compose} up -d --remove-orphans`,
    `gate ${Math.max(1, Math.round(o.gateSeconds))} ${services.join(' ')}`,
    // Healthy: it is now the last healthy release the next change is compared with and restored to (the
    // start step's gate reads it), not the release that was rolled back from.
    ...keepAsLastHealthy([...Object.keys(o.target.files), '.env'], once),
    `echo "release ${o.target.number} restored and healthy"`,
  ].join('\n');
}
