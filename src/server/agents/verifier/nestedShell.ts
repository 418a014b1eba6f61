import { expandedNames, parseShell, shSyntax, type ShNode } from './shellSyntax';
import { literalValue, wordValue } from './wordValue';

/**
 * Shell text inside a command: the script `sh -c '…'` runs, the remote command of `ssh host '…'`, and the
 * same behind the commands that run another command (`sudo`, `su -c`, `runuser`, `env`, `timeout`,
 * `xargs`, `docker exec`, `docker compose exec`, …). ShellCheck reads none of it (its string is data to
 * it; koalaman/shellcheck#1889 asks for checks of `sh -c "…$1…"`), so the verifier reads it itself, with
 * the same bash parser, as deep as it is nested. Where the shell runs decides which variables reach it:
 * a local shell inherits the exported environment, `ssh` starts the server's login shell with none of it,
 * `sudo` (env_reset, Debian's default) and `su -` clear it, a container has its own.
 */

export type Place = 'here' | 'server' | 'container';

export interface NestedShell {
  /** The text the shell runs, after quote removal; absent when it is built as the script runs. */
  text?: string;
  /** What the text is built from when it is not literal (`$IP, a command substitution`). */
  unread?: string;
  /** 1-based line, in the script holding the command, where the text starts. */
  line: number;
  /** For each line of `text`, the line of the script holding the command it is written on. */
  lines?: number[];
  /** The command as written up to the text (`sudo -u app sh -c`, `ssh -F ssh-keys/config da-server`). */
  runner: string;
  place: Place;
  /** The container's name or Compose service, for `docker exec` / `docker compose exec`. */
  container?: string;
  /** Whether the exported variables of the script holding the command reach the shell. */
  inherits: boolean;
  /** Variables set for the shell on the way (`PW=… sh -c`, `env X=…`, `docker exec -e X`): each with the variables its value expands. */
  sets: Array<{ name: string; from: string[] }>;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'zsh']);

/** Options that take the next word as their argument, per runner (a long option may also carry it after `=`). */
const WITH_ARGUMENT: Record<string, Set<string>> = {
  ssh: new Set(['-B', '-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-p', '-Q', '-R', '-S', '-W', '-w']),
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U', '--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type', '--command-timeout', '--other-user']),
  su: new Set(['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment']),
  env: new Set(['-u', '--unset', '-C', '--chdir']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '--class', '-n', '--classdata']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
  exec: new Set(['-a']),
  xargs: new Set(['-I', '-n', '-P', '-d', '-E', '-L', '-s', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-lines', '--max-chars', '--replace', '--eof', '--process-slot-var']),
  docker: new Set(['-H', '--host', '-c', '--context', '--config', '-l', '--log-level']),
  compose: new Set(['-f', '--file', '-p', '--project-name', '--project-directory', '--env-file', '--profile', '--ansi', '--progress', '--parallel']),
  'docker exec': new Set(['-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys']),
  'compose exec': new Set(['-e', '--env', '-u', '--user', '-w', '--workdir', '--index']),
};

/** Runners that only run the command after their options, with the same environment. */
const PASS_THROUGH = new Set(['nohup', 'nice', 'ionice', 'stdbuf', 'setsid', 'exec', 'command', 'xargs', 'time']);

const base = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/**
 * The index of the first word at or after `i` that is no option of `runner` (`--` ends them), read as
 * getopt reads them: `-u root`, `-uroot`, `-Eu root`, `--user root`, `--user=root`.
 */
function pastOptions(words: Array<string | undefined>, i: number, runner: string, seen: (option: string) => void = () => {}): number {
  const takes = WITH_ARGUMENT[runner] ?? new Set<string>();
  while (i < words.length) {
    const word = words[i];
    if (word === undefined || !word.startsWith('-') || word === '-') return i;
    if (word === '--') return i + 1;
    if (word.startsWith('--')) {
      seen(word);
      i += takes.has(word) ? 2 : 1;
      continue;
    }
    let next = i + 1;
    for (let k = 1; k < word.length; k += 1) {
      const option = `-${word[k]}`;
      seen(option);
      if (!takes.has(option)) continue;
      // The rest of the cluster is its argument, or the next word is.
      if (k === word.length - 1) next = i + 2;
      break;
    }
    i = next;
  }
  return i;
}

/** `NAME` of a word `NAME=…` (the value may be built from expansions), else undefined. */
function assignedName(word: ShNode | undefined): string | undefined {
  const first = word?.Parts?.[0];
  const text = first && shSyntax().NodeType(first) === 'Lit' && typeof first.Value === 'string' ? first.Value : '';
  return /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(text)?.[1];
}

/** `-c` in a shell's options (`-c`, `-ec`, `-lc`), past options that take an argument (`-o pipefail`). */
function shellCommandIndex(words: Array<string | undefined>, i: number): number | undefined {
  let command = false;
  while (i < words.length) {
    const word = words[i];
    if (word === undefined || !/^[-+]/.test(word) || word === '-' || word === '+') break;
    if (word === '--') {
      i += 1;
      break;
    }
    if (word.startsWith('--')) {
      i += word === '--rcfile' || word === '--init-file' ? 2 : 1;
      continue;
    }
    if (word.startsWith('-') && word.includes('c')) command = true;
    i += /[oO]/.test(word) ? 2 : 1;
  }
  return command && i < words.length ? i : undefined;
}

/** The runner as written, for findings: its words up to the text, an unreadable word as `…`. */
const written = (words: Array<string | undefined>, end: number): string => words.slice(0, end).map((w) => (w === undefined ? '…' : /[\s'"]/.test(w) ? `'${w}'` : w)).join(' ');

/**
 * The shell text a command runs, if it runs one.
 *
 * @example nestedShell(parsed('sudo -E sh -c \'mysql -p"$PW"\'')) // { text: 'mysql -p"$PW"', runner: 'sudo -E sh -c', inherits: true, … }
 */
export function nestedShell(call: ShNode): NestedShell | undefined {
  const args = call.Args ?? [];
  const words = args.map((a) => literalValue(a));
  const sets: NestedShell['sets'] = (call.Assigns ?? []).flatMap((a) => (typeof a.Name?.Value === 'string' ? [{ name: a.Name.Value, from: a.Value && typeof a.Value !== 'string' ? expandedNames(a.Value) : [] }] : []));
  let place: Place = 'here';
  let container: string | undefined;
  let inherits = true;
  /** The text in `parts` (ssh's remote words are joined by a space), `strip` taken off its front (`--command=`). */
  const found = (at: number, parts: ShNode[] = [args[at]!], strip = 0): NestedShell => {
    const values = parts.map((p) => wordValue(p));
    const unread = values.flatMap((v) => ('unread' in v ? [v.unread] : []));
    const shared = { line: parts[0]!.Pos().Line(), runner: written(words, at), place, ...(container !== undefined ? { container } : {}), inherits, sets };
    if (unread.length) return { ...shared, unread: [...new Set(unread)].join(', ') };
    const read = values.flatMap((v) => ('text' in v ? [v] : []));
    return { ...shared, text: read.map((v) => v.text).join(' ').slice(strip), lines: read.flatMap((v, k) => (k ? v.lines.slice(1) : v.lines)) };
  };
  let i = 0;
  for (let guard = 0; guard < 32 && i < words.length; guard += 1) {
    const word = words[i];
    if (word === undefined) return undefined;
    const name = base(word);
    if (SHELLS.has(name)) {
      const at = shellCommandIndex(words, i + 1);
      return at === undefined ? undefined : found(at);
    }
    if (name === 'ssh') {
      const at = pastOptions(words, i + 1, 'ssh') + 1;
      if (at >= args.length) return undefined;
      place = 'server';
      inherits = false;
      sets.length = 0;
      // ssh joins its remote words with spaces and the login shell runs the result.
      return found(at, args.slice(at));
    }
    if (name === 'su' || name === 'runuser') {
      // su's options may follow the user (`su postgres -c '…'`); `runuser -u app -- cmd …` runs a command.
      let next: number | undefined;
      for (let j = i + 1; j < words.length && next === undefined; j += 1) {
        const w = words[j];
        if (w === '-' || w === '-l' || w === '--login') inherits = false;
        else if (w === '--') next = j + 1;
        else if ((w === '-c' || w === '--command') && j + 1 < args.length) return found(j + 1);
        else if (w?.startsWith('--command=')) return found(j, [args[j]!], '--command='.length);
        else if (w !== undefined && WITH_ARGUMENT.su!.has(w)) j += 1;
      }
      if (next === undefined) return undefined;
      i = next;
      continue;
    }
    if (name === 'sudo') {
      let keeps = false;
      i = pastOptions(words, i + 1, 'sudo', (o) => {
        if (o === '-E' || o.startsWith('--preserve-env')) keeps = true;
      });
      // sudo's env_reset (Debian's default) gives the command a fresh environment unless -E keeps it.
      if (!keeps) inherits = false;
      for (let n = assignedName(args[i]); n !== undefined; n = assignedName(args[i])) {
        sets.push({ name: n, from: expandedNames(args[i]!) });
        i += 1;
      }
      continue;
    }
    if (name === 'env') {
      for (i += 1; i < args.length; i += 1) {
        const w = words[i];
        const n = assignedName(args[i]);
        if (n !== undefined) sets.push({ name: n, from: expandedNames(args[i]!) });
        else if (w === '-i' || w === '-' || w === '--ignore-environment') inherits = false;
        else if (w !== undefined && WITH_ARGUMENT.env!.has(w)) i += 1;
        else if (w === undefined || !w.startsWith('-')) break;
      }
      continue;
    }
    if (name === 'timeout') {
      // Its duration comes before the command.
      i = pastOptions(words, i + 1, 'timeout') + 1;
      continue;
    }
    if (name === 'command' && /^-[vV]/.test(words[i + 1] ?? '')) return undefined;
    if (PASS_THROUGH.has(name)) {
      i = pastOptions(words, i + 1, name);
      continue;
    }
    const afterDocker = name === 'docker' ? pastOptions(words, i + 1, 'docker') : i;
    const compose = name === 'docker-compose' || name === 'compose' ? i : name === 'docker' && words[afterDocker] === 'compose' ? afterDocker : undefined;
    if (compose === undefined && name !== 'docker') return undefined;
    const sub = compose !== undefined ? pastOptions(words, compose + 1, 'compose') : afterDocker;
    if (words[sub] !== 'exec') return undefined;
    const runner = compose !== undefined ? 'compose exec' : 'docker exec';
    const passed: NestedShell['sets'] = [];
    let j = sub + 1;
    for (; j < args.length; ) {
      const w = words[j];
      if (w === '--') {
        j += 1;
        break;
      }
      if (w === undefined || !w.startsWith('-')) break;
      if (w === '-e' || w === '--env') {
        // `-e NAME` passes the variable of the calling environment; `-e NAME=…` a value of its own.
        const n = assignedName(args[j + 1]);
        if (n !== undefined) passed.push({ name: n, from: expandedNames(args[j + 1]!) });
        else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(words[j + 1] ?? '')) passed.push({ name: words[j + 1]!, from: [words[j + 1]!] });
      }
      j = pastOptions([w, words[j + 1] ?? '-'], 0, runner) === 2 ? j + 2 : j + 1;
    }
    if (j >= args.length) return undefined;
    place = 'container';
    container = words[j];
    inherits = false;
    sets.length = 0;
    sets.push(...passed);
    i = j + 1;
  }
  return undefined;
}

/** Every shell text a script runs, however deep, with the lines of the outer script it is written on. */
export interface ShellText {
  /** The runners from the outer script inward (`ssh da-server` then `sudo sh -c`). */
  via: NestedShell[];
  text?: string;
  unread?: string;
  /** The line of the outer script a line of `text` is written on. */
  lineOf: (line: number) => number;
  /** Where it runs, relative to the outer script. */
  place: Place;
}

const MAX_DEPTH = 8;

/** A nested text's line in the script holding its command. */
export const lineIn = (nested: NestedShell) => (line: number): number => nested.lines?.[line - 1] ?? nested.lines?.[nested.lines.length - 1] ?? nested.line;

/** Where a chain of runners ends up, relative to the outer script. */
export const placeOf = (via: NestedShell[]): Place => via.reduce<Place>((place, v) => (place === 'container' || v.place === 'here' ? place : v.place), 'here');

/** Nested shell texts of `script` at any depth, outermost first. */
export function shellTexts(script: string, lineOf: (line: number) => number = (line) => line, via: NestedShell[] = []): ShellText[] {
  const file = parseShell(script);
  if (!file || via.length >= MAX_DEPTH) return [];
  const sh = shSyntax();
  const out: ShellText[] = [];
  sh.Walk(file, (node) => {
    if (!node || sh.NodeType(node) !== 'CallExpr') return true;
    const nested = nestedShell(node);
    if (!nested) return true;
    const chain = [...via, nested];
    const inner = (line: number): number => lineOf(lineIn(nested)(line));
    out.push({ via: chain, ...(nested.text !== undefined ? { text: nested.text } : { unread: nested.unread! }), lineOf: inner, place: placeOf(chain) });
    if (nested.text !== undefined) out.push(...shellTexts(nested.text, inner, chain));
    return true;
  });
  return out;
}
/** How a finding names where a nested text runs: `the shell text of ssh da-server, then of sudo sh -c`. */
export const viaWords = (via: NestedShell[]): string => `the shell text of ${via.map((v) => v.runner).join(', then of ')}`;
