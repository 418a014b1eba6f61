import { waitHealthy } from './remoteShell';

/**
 * Remote: bring the stack up as a release with a health gate. The files the plan copied are compared with
 * the last release that came up healthy (kept on the server in `.release/last-healthy`), `up` applies the
 * difference (Compose recreates only what changed, and removes services the release no longer has), and
 * the gate waits for every container. When the gate fails and a healthy release is kept, its files are
 * put back, the stack is brought up from them and the step still fails: the person sees which service
 * failed, that the last healthy release was restored, and whether it is healthy again.
 */

/** Printed by a step whose gate failed and restored the last healthy release; the server reports it. */
export const GATE_FAILED_MARKER = 'health gate failed: restoring the last healthy release';
export const RESTORED_HEALTHY = 'the last healthy release is restored and healthy';
export const RESTORED_UNHEALTHY = 'the last healthy release is restored but is not healthy';
/** Printed when Compose could not start every container of the change at all. */
const COULD_NOT_START = 'a container could not be started';
/** Where the server keeps the files of the last release that passed its gate, inside the stack directory. */
export const LAST_HEALTHY = '.release/last-healthy';
/**
 * Where a change that failed its gate is kept when the last healthy release is put back over it: "Start the
 * stack" run again alone would otherwise find release N's files, come up healthy, and complete with the
 * person's change silently not applied. Run again with nothing copied since, it applies the change again.
 */
export const FAILED_CHANGE = '.release/failed-change';
/** Printed when the start step applies again the change that failed its gate (nothing was copied since). */
export const APPLYING_AGAIN = 'applying again the change that failed its health gate (the files here were the restored release)';

export interface GateOptions {
  /** Paths (relative to the stack directory) the plan writes: the compose file, its configuration files, `.env`. */
  files: string[];
  /** Services that run once and exit 0 (see waitHealthy), from the compose file (oneShot.ts). */
  oneShot: string[];
  /** How long a first deploy waits; a change waits as long but fails at once on `unhealthy`. */
  seconds: number;
  /** How long the restored release gets. */
  restoreSeconds: number;
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Runs after `cd` into the stack directory, with DETECT_DOCKER's `compose` and `docker` defined. */
export function gatedUp(o: GateOptions): string[] {
  const files = [...new Set(['docker-compose.yml', ...o.files])].map(quote).join(' ');
  return [
    `files=(${files})`,
    `last=${LAST_HEALTHY}`,
    `failed=${FAILED_CHANGE}`,
    // The files here are exactly the restored release's: nothing was copied since the change failed, so this
    // run is the change again, not the restored release (a copy since, or a roll back, makes them differ or
    // removes the kept change).
    'if [ -d "$failed" ] && [ -f "$last/docker-compose.yml" ]; then',
    '  same=1; for f in "${files[@]}"; do if [ -f "$last/$f" ]; then cmp -s "$last/$f" "$f" || same=0; elif [ -f "$f" ]; then same=0; fi; done',
    `  if [ "$same" = 1 ]; then echo "${APPLYING_AGAIN}"; for f in "\${files[@]}"; do [ -f "$failed/$f" ] || rm -f "$f"; done; cp -pR "$failed/." .; fi`,
    'fi',
    'rm -rf "$failed"',
    'if [ -f "$last/docker-compose.yml" ]; then',
    '  echo "changes from the last healthy release:"',
    '  for f in "${files[@]}"; do [ "$f" = .env ] && continue; if [ -f "$last/$f" ]; then diff -u "$last/$f" "$f" || true; else echo "added: $f"; fi; done',
    'fi',
    // A change is gated strictly (unhealthy fails at once); a first deploy has nothing to go back to.
    `if [ -f "$last/docker-compose.yml" ]; then gate() { ( ${waitHealthy(o.seconds, o.oneShot, { failUnhealthy: true }).replace(/\n/g, '\n    ')}\n  ); }; else gate() { ( ${waitHealthy(o.seconds, o.oneShot).replace(/\n/g, '\n    ')}\n  ); }; fi`,
    // A container that cannot even start (its port taken, an image that will not run) fails the gate in words too.
    `if { compose up -d --remove-orphans || { echo "${COULD_NOT_START}: compose up exited with $? (its error is in the output above)" >&2; false; }; } && gate; then`,
    '  rm -rf "$last.new" && mkdir -p "$last.new"',
    '  for f in "${files[@]}"; do if [ -f "$f" ]; then mkdir -p "$last.new/$(dirname "$f")" && cp -p "$f" "$last.new/$f"; fi; done',
    // Which of its services run once, beside it (not in it: its files are copied back over the stack).
    `  printf '%s\\n' '${o.oneShot.join('|')}' > "$last.one-shot.new"`,
    '  rm -rf "$last" && mv "$last.new" "$last" && mv "$last.one-shot.new" "$last.one-shot"',
    '  compose ps',
    'else',
    '  if [ -f "$last/docker-compose.yml" ]; then',
    `    echo "${GATE_FAILED_MARKER}"`,
    '    rm -rf "$failed" && mkdir -p "$failed"',
    '    for f in "${files[@]}"; do if [ -f "$f" ]; then mkdir -p "$failed/$(dirname "$f")" && cp -p "$f" "$failed/$f"; fi; done',
    '    for f in "${files[@]}"; do [ -f "$last/$f" ] || rm -f "$f"; done',
    '    cp -pR "$last/." .',
    '    compose up -d --remove-orphans',
    // The restored release's own tasks that run once (a release kept before they were recorded: this one's).
    `    once=${quote(o.oneShot.join('|'))}; if [ -f "$last.one-shot" ]; then once=$(cat "$last.one-shot"); fi`,
    `    if ( ${waitHealthy(o.restoreSeconds, o.oneShot, { oneShotVar: 'once' }).replace(/\n/g, '\n      ')}\n    ); then echo "${RESTORED_HEALTHY}"; else echo "${RESTORED_UNHEALTHY}"; fi`,
    '  fi',
    '  exit 1',
    'fi',
  ];
}

/** The person's words for a failed gate: which containers failed, and what was restored. */
export function gateFailureNote(output: string): string {
  const lines = output.split('\n').map((l) => l.trim());
  const reason = lines.filter((l) => /^(a container stopped|not every container is healthy|a container could not be started)/.test(l) || / (unhealthy|exited|dead) -?\d+$/.test(l));
  const outcome = lines.find((l) => l === RESTORED_HEALTHY || l === RESTORED_UNHEALTHY) ?? 'the last healthy release was being restored when the step ended';
  return [`The change did not pass its health gate: ${reason.join('; ') || 'see the step output'}.`, `${outcome[0]!.toUpperCase()}${outcome.slice(1)}.`].join(' ');
}
