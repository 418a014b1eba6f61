import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { heredocsOf, remoteScript } from './heredocs';
import { shellTexts, viaWords } from './nestedShell';
import type { SecretOptions } from './secretArguments';
import { secretFindings } from './secretFindings';
import type { Finding, PlanStepScript } from './types';

/**
 * Step scripts: each passes `bash -n` and ShellCheck at error level, and uses no variable that nothing
 * sets while `set -u` is on (the step runner and every remote script run under `set -euo pipefail`).
 * A script's variables come from the environment it runs in (the workspace: the sandbox's own and the
 * User Secrets; a server: its login environment and what the command line passes to `bash -s`) and
 * from its own assignments. ShellCheck finds references nothing assigns (SC2154) but leaves out
 * ALL_CAPS names as possible environment variables, so each script is checked with those renamed to
 * lowercase, and the environment judged here.
 */

/** Set by bash itself, or by the login of any user. */
const SHELL_VARIABLES = [
  'HOME', 'USER', 'LOGNAME', 'PATH', 'PWD', 'OLDPWD', 'SHELL', 'LANG', 'LC_ALL', 'HOSTNAME', 'UID', 'EUID', 'PPID',
  'SECONDS', 'RANDOM', 'LINENO', 'IFS', 'OPTARG', 'OPTIND', 'REPLY', 'PIPESTATUS', 'BASH_REMATCH', 'BASH_SOURCE',
  'BASH_VERSION', 'BASH_VERSINFO', 'BASHPID', 'FUNCNAME', 'HOSTTYPE', 'OSTYPE', 'MACHTYPE', 'EPOCHSECONDS',
  'EPOCHREALTIME', 'SHLVL', 'GROUPS', 'DIRSTACK', 'BASH_LINENO', 'BASH_ARGV', 'BASH_ARGC', 'BASH', 'HISTFILE',
];
/** An SSH login on the server adds these. */
const SSH_LOGIN_VARIABLES = ['SSH_CLIENT', 'SSH_CONNECTION', 'MAIL', 'TERM'];
const PREFIX = 'zzu_';

interface Script {
  file: string;
  text: string;
  step: PlanStepScript;
  /** Variables the environment gives it. */
  env: Set<string>;
  label: string;
  /** Shell text nested in a command: checked for syntax and ShellCheck's errors only, its lines mapped to the outer script's. */
  nested?: { where: (line: number) => string };
}

/** Renames every ALL_CAPS word to a lowercase one ShellCheck checks, consistently (structure is kept). */
function lowerCaps(text: string): { text: string; back: Map<string, string> } {
  const back = new Map<string, string>();
  const renamed = text.replace(/\b[A-Z][A-Z0-9_]*\b/g, (word) => {
    const lower = `${PREFIX}${word.toLowerCase()}`;
    back.set(lower, word);
    return lower;
  });
  return { text: renamed, back };
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, stdout: String(stdout), stderr: String(stderr), missing: e?.code === 'ENOENT' });
    });
  });
}

interface ShellcheckComment {
  file: string;
  line: number;
  level: string;
  code: number;
  message: string;
}

/** The shell text nested in `script`'s commands, as scripts to check; `where` names a line of `script`. */
function nestedScripts(script: string, file: string, step: PlanStepScript, where: (line: number) => string): Script[] {
  return shellTexts(script).flatMap((t, k) =>
    t.text === undefined
      ? []
      : [{ file: `${file}-nested-${k + 1}.sh`, text: `${t.text}\n`, step, env: new Set<string>(), label: `${where(t.lineOf(1))} (${viaWords(t.via)})`, nested: { where: (line: number) => `${where(t.lineOf(line))} (${viaWords(t.via)})` } }],
  );
}

export async function scriptFindings(steps: PlanStepScript[], secrets: string[], options: SecretOptions = {}): Promise<Finding[]> {
  if (!steps.length) return [];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'plan-verify-'));
  const findings: Finding[] = [];
  try {
    const scripts: Script[] = [];
    for (const step of steps) {
      // As the step runner runs it.
      const text = `set -euo pipefail\n${step.script}\n`;
      scripts.push({ file: `step-${step.number}.sh`, text, step, env: new Set([...SHELL_VARIABLES, ...secrets]), label: `Step ${step.number}` });
      const stepLine = (line: number): string => `Step ${step.number}, line ${line}`;
      findings.push(...secretFindings(step.script, secrets, 'the sandbox', stepLine, options));
      scripts.push(...nestedScripts(step.script, `step-${step.number}`, step, stepLine));
      heredocsOf(step.script).forEach((doc, k) => {
        const remote = remoteScript(doc);
        if (!remote) return;
        if (doc.quoted) {
          const where = (line: number): string => `Step ${step.number} (the script run on the server), line ${doc.line + line}`;
          findings.push(...secretFindings(doc.body, remote.passed.filter((n) => secrets.includes(n)), 'the server', where, options));
          scripts.push(...nestedScripts(doc.body, `step-${step.number}-remote-${k + 1}`, step, where));
        }
        // On ssh's command line a value shows in `ps` in the sandbox and on the server for the whole step.
        for (const name of remote.onCommandLine.filter((n) => secrets.includes(n))) {
          findings.push({
            severity: 'error',
            code: 'secret-on-command-line',
            message: `The User Secret ${name} is put on ssh's command line, where ps shows its value to every user of the sandbox and of the server while the step runs: send it on ssh's stdin ahead of the script instead ({ printf 'export %s=%q\\n' ${name} "$${name}"; cat <<'REMOTE'; } | ssh … 'bash -s')`,
            where: `Step ${step.number}, line ${doc.line}`,
          });
        }
        if (!doc.quoted) return;
        scripts.push({
          file: `step-${step.number}-remote-${k + 1}.sh`,
          text: `${doc.body}\n`,
          step,
          env: new Set([...SHELL_VARIABLES, ...SSH_LOGIN_VARIABLES, ...remote.passed]),
          label: `Step ${step.number} (the script run on the server, line ${doc.line})`,
        });
      });
    }
    const renames = new Map<string, Map<string, string>>();
    for (const s of scripts) {
      await fs.writeFile(path.join(dir, s.file), s.text);
      if (s.nested) continue;
      const lowered = lowerCaps(s.text);
      renames.set(s.file, lowered.back);
      await fs.writeFile(path.join(dir, `lc-${s.file}`), lowered.text);
    }
    for (const s of scripts) {
      const syntax = await run('bash', ['-n', s.file], dir);
      if (syntax.code !== 0) {
        findings.push({ severity: 'error', code: 'bash-syntax', message: `bash -n refuses it: ${syntax.stderr.trim().split('\n')[0]!.replace(`${s.file}: `, '')}`, where: s.label });
      }
    }
    const checked = await run('shellcheck', ['-s', 'bash', '-f', 'json', '-S', 'warning', ...scripts.flatMap((s) => (s.nested ? [s.file] : [s.file, `lc-${s.file}`]))], dir);
    if (checked.missing) {
      findings.push({ severity: 'warning', code: 'shellcheck-missing', message: 'ShellCheck is not installed on the server, so the step scripts were checked with bash -n only', where: 'verifier' });
      return findings;
    }
    let comments: ShellcheckComment[] = [];
    try {
      comments = JSON.parse(checked.stdout || '[]') as ShellcheckComment[];
    } catch {
      findings.push({ severity: 'warning', code: 'shellcheck-unreadable', message: `ShellCheck's answer could not be read: ${checked.stderr.trim().slice(0, 200)}`, where: 'verifier' });
      return findings;
    }
    const byFile = new Map(scripts.map((s) => [s.file, s]));
    const unset = new Map<string, Set<string>>();
    for (const c of comments) {
      const lowered = c.file.startsWith('lc-');
      const s = byFile.get(lowered ? c.file.slice(3) : c.file);
      if (!s) continue;
      if (s.nested) {
        if (c.level === 'error') findings.push({ severity: 'error', code: `shellcheck-SC${c.code}`, message: `ShellCheck: ${c.message}`, where: s.nested.where(c.line) });
        continue;
      }
      // The step runner's `set -euo pipefail` is line 1 of a step's file.
      const line = s.file.includes('-remote-') ? c.line : c.line - 1;
      if (!lowered && c.level === 'error') {
        findings.push({ severity: 'error', code: `shellcheck-SC${c.code}`, message: `ShellCheck: ${c.message}`, where: `${s.label}, line ${line}` });
      }
      if (lowered && c.code === 2154) {
        const name = c.message.match(/^(\S+) is referenced but not assigned/)?.[1];
        if (!name) continue;
        const original = renames.get(s.file)?.get(name) ?? name;
        if (s.env.has(original)) continue;
        const seen = unset.get(s.file) ?? new Set<string>();
        if (seen.has(original)) continue;
        seen.add(original);
        unset.set(s.file, seen);
        // A sourced file (`. /etc/os-release`) may set it: said, not blocked.
        const sources = /(^|[\s;&|])(\.|source)\s+\S/m.test(s.text);
        findings.push({
          severity: sources ? 'warning' : 'error',
          code: 'unset-variable',
          message: s.file.includes('-remote-')
            ? `$${original} is used on the server under set -u, but nothing there sets it${sources ? ' (unless the file it sources does)' : ''}: the script stops with "unbound variable". Send it ahead of the script on ssh's stdin ({ printf 'export %s=%q\\n' ${original} "$${original}"; cat <<'REMOTE'; } | ssh … 'bash -s') or read it on the server`
            : `$${original} is used under set -u, but it is no User Secret and the step does not set it${sources ? ' (unless the file it sources does)' : ''}: the step stops with "unbound variable"`,
          where: `${s.label}, line ${line}`,
        });
      }
    }
    return findings;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
