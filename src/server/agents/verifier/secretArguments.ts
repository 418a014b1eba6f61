import { TEXT_SECRETS } from './catalogueKnowledge';
import { lineIn, nestedShell, placeOf, type NestedShell, type Place } from './nestedShell';
import { expandedNames, literal, parseShell, shSyntax, type ShNode } from './shellSyntax';
import type { Finding } from './types';

/**
 * Where a script puts a secret's value on a process's command line. Every user of a machine reads every
 * process's argv (`ps`, /proc/<pid>/cmdline) for as long as it runs, so a value expanded into an argument
 * of a program (`mysql -p"$DB_PASSWORD"`, `curl -u "elastic:$PW"`) shows there; the same value in the
 * program's environment (`MYSQL_PWD="$DB_PASSWORD" mysql …`), on its stdin or in a 0600 file does not.
 * Read with the bash parser: an argument of a builtin (`printf`, `echo`, `test`) or of a function of the
 * script starts no process; a variable assigned from a secret carries it (`pw=$DB_PASSWORD; mysql -p"$pw"`);
 * text inside `$(…)` and here-documents is not an argument of the outer command. Shell text a command
 * runs (`sh -c '…'`, `ssh host '…'`, `docker compose exec db sh -c '…'`) is read too, with the variables
 * that reach it (see nestedShell.ts).
 */

export interface SecretArgument {
  /** The variable expanded into the argument. */
  variable: string;
  /** The secret it holds (the variable itself, or the one it was assigned from). */
  secret: string;
  /** The program whose argv holds it (the command's first word as written). */
  program: string;
  /** 1-based line of the command in the script. */
  line: number;
  /** Why this program can take the value no other way, when that is so: then it is said, not blocked. */
  noOtherWay?: string;
  /** For a command in nested shell text: the runners that lead to it, outermost first (`ssh da-server`, `sh -c`). */
  via?: string[];
  /** Where that nested command runs, relative to the script: on the same machine, the server, or in a container. */
  place?: Place;
}

/** Run by bash itself: no process, no argv. (`eval`, `exec` and `command` run what follows, so they are not here.) */
const BUILTINS = new Set([
  ':', '.', 'source', 'alias', 'bg', 'bind', 'break', 'builtin', 'caller', 'cd', 'compgen', 'complete', 'continue',
  'declare', 'dirs', 'disown', 'echo', 'enable', 'exit', 'export', 'false', 'fc', 'fg', 'getopts', 'hash', 'help',
  'history', 'jobs', 'kill', 'let', 'local', 'logout', 'mapfile', 'popd', 'printf', 'pushd', 'pwd', 'read',
  'readarray', 'readonly', 'return', 'set', 'shift', 'shopt', 'suspend', 'test', '[', 'times', 'trap', 'true',
  'type', 'typeset', 'ulimit', 'umask', 'unalias', 'unset', 'wait',
]);

/** Programs that run the program their arguments name (`sudo -E mysql …`): the finding names that one. */
const WRAPPERS = new Set(['sudo', 'env', 'exec', 'nohup', 'nice', 'ionice', 'stdbuf', 'setsid', 'timeout', 'command', 'xargs']);

/** The program a command runs: its first word, past wrappers, their options and env's assignments. */
function programOf(args: ShNode[]): { program: string; rest: ShNode[] } {
  let i = 0;
  for (;;) {
    const word = literal(args[i]);
    if (word === undefined) return { program: '(a program named by a variable)', rest: args.slice(i + 1) };
    if (!WRAPPERS.has(word)) return { program: word, rest: args.slice(i + 1) };
    i += 1;
    while (i < args.length && /^(-|[A-Za-z_][A-Za-z0-9_]*=|\d)/.test(literal(args[i]) ?? '-')) i += 1;
    if (i >= args.length) return { program: word, rest: [] };
  }
}

/** Programs that take a secret only as an argument, with the reason (checked against their documentation). */
const ONLY_AS_ARGUMENT: Array<{ program: string; subcommand: string; why: string }> = [
  {
    program: 'az',
    subcommand: 'login',
    why: "az login reads a service principal's client secret only from its command line (Azure CLI issue 10241 asks for an environment variable); a certificate (--certificate) keeps it off",
  },
];

/** The ways a program takes a secret off its command line, said in every finding (the model picks the one its program has). */
const SECRET_WAYS =
  "its environment for the program alone (MYSQL_PWD=\"$PW\" mysql …, PGPASSWORD, REDISCLI_AUTH, SSHPASS with sshpass -e), its stdin (printf '%s' \"$PW\" | docker login --password-stdin …, a curl config written by awk from its environment, which takes any value (awk 'BEGIN { printf \"user = \\\"elastic:%s\\\"\\n\", ENVIRON[\"PW\"] }' | curl -K - …, with \\\\, \\\" and line breaks escaped), htpasswd -i), a config file of mode 0600 removed afterwards (mongodump --config), or for ssh the stdin ahead of the script ({ printf 'export %s=%q\\n' NAME \"$NAME\"; cat <<'REMOTE'; } | ssh … 'bash -s')";

/** Options of the reading of a script's secrets. */
export interface SecretOptions {
  /** A container's variables that hold a User Secret (variable → secret), by the container or Compose service a command names. */
  container?: (name: string | undefined) => Map<string, string>;
}

/** A User Secret a nested shell uses although it does not reach that shell (`ssh host '…$PW…'`, `sudo sh -c '…$PW…'`): there it is empty. */
export interface UnreachedSecret {
  secret: string;
  /** 1-based line in the outer script. */
  line: number;
  via: NestedShell[];
}

/** Shell text nested in a command that is built as the script runs, so its commands cannot be read. */
export interface UnreadShell {
  line: number;
  via: NestedShell[];
  /** What it is built from. */
  unread: string;
}

export interface SecretReading {
  hits: SecretArgument[];
  unreached: UnreachedSecret[];
  unread: UnreadShell[];
}

const MAX_DEPTH = 8;

/** The variables a nested shell starts with that hold a secret, from what its runner passes on. */
function innerHolds(nested: NestedShell, holds: Map<string, string>, exported: Set<string>, options: SecretOptions): Map<string, string> {
  const inner = new Map<string, string>();
  if (nested.inherits) for (const [name, secret] of holds) if (exported.has(name)) inner.set(name, secret);
  if (nested.place === 'container') for (const [name, secret] of options.container?.(nested.container) ?? []) inner.set(name, secret);
  for (const set of nested.sets) {
    const from = set.from.find((n) => holds.has(n));
    if (from) inner.set(set.name, holds.get(from)!);
  }
  return inner;
}

/**
 * Reads one script: its programs' arguments that hold a secret, then, with the variables each runner
 * passes on, every shell text nested in its commands (`sh -c '…'`, `ssh host '…'`, `docker exec … sh -c`).
 * `environment` is the variables that hold a secret as the script starts (all exported).
 */
function readScript(script: string, environment: Map<string, string>, userSecrets: Set<string>, options: SecretOptions, at: { lineOf: (line: number) => number; via: NestedShell[] }, out: SecretReading): void {
  const file = parseShell(script);
  if (!file) return;
  const sh = shSyntax();
  const calls: ShNode[] = [];
  const assigns: ShNode[] = [];
  const functions = new Set<string>();
  const exported = new Set(environment.keys());
  const used: Array<{ name: string; line: number }> = [];
  sh.Walk(file, (node) => {
    if (!node) return true;
    const type = sh.NodeType(node);
    if (type === 'CallExpr') calls.push(node);
    else if (type === 'Assign') assigns.push(node);
    else if (type === 'FuncDecl' && typeof node.Name?.Value === 'string') functions.add(node.Name.Value);
    else if (type === 'ParamExp' && typeof node.Param?.Value === 'string') used.push({ name: node.Param.Value, line: node.Pos().Line() });
    else if (type === 'DeclClause') {
      // `export pw`, `export pw=…`, `declare -x pw=…`: the variable reaches the commands the script runs.
      const variant = (node as ShNode & { Variant?: ShNode }).Variant?.Value;
      const args = (node as ShNode & { Args?: ShNode[] }).Args ?? [];
      const flagged = variant === 'export' || args.some((a) => a.Name === null && a.Value && typeof a.Value !== 'string' && /^-\w*x/.test(literal(a.Value) ?? ''));
      if (flagged) for (const a of args) if (typeof a.Name?.Value === 'string') exported.add(a.Name.Value);
    }
    return true;
  });
  // `NAME=$PW program …` puts it in that program's environment only: the recommended way, no variable of the script.
  const prefixes = new Set(calls.filter((c) => c.Args?.length).flatMap((c) => c.Assigns ?? []));
  const holds = new Map(environment);
  for (let changed = true; changed; ) {
    changed = false;
    for (const assign of assigns) {
      const name = assign.Name?.Value;
      const value = assign.Value;
      if (prefixes.has(assign) || typeof name !== 'string' || holds.has(name) || !value || typeof value === 'string') continue;
      const from = expandedNames(value).find((n) => holds.has(n));
      if (from) {
        holds.set(name, holds.get(from)!);
        changed = true;
      }
    }
  }
  const outer = at.lineOf;
  const nestedAt = at.via.length ? { via: at.via.map((v) => v.runner), place: placeOf(at.via) } : {};
  for (const call of calls) {
    const args = call.Args ?? [];
    if (!args.length) continue;
    const first = literal(args[0]);
    if (first !== undefined && (BUILTINS.has(first) || functions.has(first))) continue;
    const { program, rest } = programOf(args);
    const only = ONLY_AS_ARGUMENT.find((o) => o.program === program && rest.some((a) => literal(a) === o.subcommand));
    const seen = new Set<string>();
    for (const arg of args) {
      for (const variable of expandedNames(arg).filter((n) => holds.has(n) && !seen.has(n))) {
        seen.add(variable);
        out.hits.push({ variable, secret: holds.get(variable)!, program, line: outer(call.Pos().Line()), ...(only ? { noOtherWay: only.why } : {}), ...nestedAt });
      }
    }
  }
  // A User Secret that does not reach a nested shell is empty there (a container's own environment is not known whole).
  if (at.via.length && placeOf(at.via) !== 'container') {
    const own = new Set(assigns.flatMap((a) => (typeof a.Name?.Value === 'string' ? [a.Name.Value] : [])));
    const said = new Set<string>();
    for (const use of used) {
      if (environment.has(use.name) || own.has(use.name) || !userSecrets.has(use.name) || said.has(use.name)) continue;
      said.add(use.name);
      out.unreached.push({ secret: use.name, line: outer(use.line), via: at.via });
    }
  }
  if (at.via.length >= MAX_DEPTH) return;
  for (const call of calls) {
    const nested = nestedShell(call);
    if (!nested) continue;
    const via = [...at.via, nested];
    if (nested.text === undefined) out.unread.push({ line: outer(nested.line), via, unread: nested.unread ?? '' });
    else readScript(nested.text, innerHolds(nested, holds, exported, options), userSecrets, options, { lineOf: (line) => outer(lineIn(nested)(line)), via }, out);
  }
}

/**
 * Every place `script` expands a secret, or a variable assigned from one, into an argument of a program,
 * also inside the shell text its commands run (as deep as it is nested), with what could not be read.
 */
export function readSecrets(script: string, secrets: Iterable<string>, options: SecretOptions = {}): SecretReading {
  const userSecrets = new Set([...secrets].filter((name) => !TEXT_SECRETS.has(name)));
  const out: SecretReading = { hits: [], unreached: [], unread: [] };
  readScript(script, new Map([...userSecrets].map((name) => [name, name])), userSecrets, options, { lineOf: (line) => line, via: [] }, out);
  return out;
}

/**
 * Every place `script` expands a secret, or a variable assigned from one, into an argument of a program.
 *
 * @example
 *   secretArguments('pw=$DB_PASSWORD\nmysql -u root -p"$pw" -e "select 1"', ['DB_PASSWORD'])
 *   // [{ variable: 'pw', secret: 'DB_PASSWORD', program: 'mysql', line: 2 }]
 *   secretArguments("sh -c 'mysql -p\"$DB_PASSWORD\"'", ['DB_PASSWORD'])
 *   // [{ variable: 'DB_PASSWORD', secret: 'DB_PASSWORD', program: 'mysql', line: 1, via: ['sh -c'], place: 'here' }]
 */
export function secretArguments(script: string, secrets: Iterable<string>, options: SecretOptions = {}): SecretArgument[] {
  return readSecrets(script, secrets, options).hits;
}

/** The sentence a finding says about one such argument. */
export type Machine = 'the sandbox' | 'the server' | 'the container';

/** Where a hit's program runs: the script's machine, or the one its nested shell text runs on. */
const machineOf = (hit: SecretArgument, script: Machine): Machine => (hit.place === 'server' && script !== 'the container' ? 'the server' : hit.place === 'container' ? 'the container' : script);

export function secretArgumentMessage(hit: SecretArgument, script: Machine): string {
  const what = hit.variable === hit.secret ? `The User Secret ${hit.secret}` : `$${hit.variable} (it holds the User Secret ${hit.secret})`;
  const machine = { 'the sandbox': 'the host the sandbox runs on', 'the server': 'the server', 'the container': 'the server the container runs on' }[machineOf(hit, script)];
  const inside = hit.via?.length ? ` (in the shell text of ${hit.via.join(', then of ')})` : '';
  const shown = `${what} is an argument of ${hit.program}${inside}, where ps shows its value to every user of ${machine} while ${hit.program} runs`;
  if (hit.noOtherWay) return `${shown}: ${hit.noOtherWay}`;
  return `${shown}: give it to ${hit.program} through ${SECRET_WAYS}`;
}

/**
 * The words of a variable's name that say it holds a credential. A User Secret named otherwise (a
 * repository's POSTGRES_USER or POSTGRES_DB, stored as a secret because its compose file reads it from the
 * environment) is said in a warning: blocking `pg_isready -U "$POSTGRES_USER"` would refuse the authors'
 * own compose files for a user name.
 */
const CREDENTIAL_WORDS = new Set(['PASSWORD', 'PASSWD', 'PASS', 'PWD', 'PW', 'SECRET', 'TOKEN', 'KEY', 'AUTH', 'CREDENTIAL', 'CREDENTIALS', 'APIKEY', 'PASSPHRASE']);

/** Whether a variable's name says it holds a credential (`MYSQL_ROOT_PASSWORD`, `GITHUB_TOKEN`, `REDISCLI_AUTH`). */
export const isCredentialName = (name: string): boolean => name.toUpperCase().split('_').some((word) => CREDENTIAL_WORDS.has(word));

/**
 * The findings of a script's secret arguments: an error for a credential (the plan is revised), a warning
 * for another User Secret or where the program takes the value no other way.
 */
export function secretArgumentFindings(hits: SecretArgument[], machine: Machine, where: (line: number) => string): Finding[] {
  return hits.map((hit) => ({
    severity: !hit.noOtherWay && isCredentialName(hit.secret) ? 'error' : 'warning',
    code: 'secret-on-command-line',
    message: secretArgumentMessage(hit, machine),
    where: where(hit.line),
  }));
}
