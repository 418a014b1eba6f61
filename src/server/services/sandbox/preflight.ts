import type { SandboxMissingTool } from '../../../shared/api/sandbox';
import type { PlannedStep } from '../../../shared/planSteps';
import { literal, parseShell, shSyntax, type ShNode } from '../../agents/verifier/shellSyntax';

/** A word that can name a program: no quotes, expansions, paths or assignments. */
const PROGRAM = /^[A-Za-z][A-Za-z0-9._+-]*$/;
/** Programs that run their first non-option argument as the program (`sudo -E hcloud …`). */
const WRAPPERS = new Set(['sudo', 'env', 'exec', 'nohup', 'xargs', 'nice', 'ionice', 'stdbuf', 'setsid']);
/** Wrappers whose first argument is theirs, not the program (`timeout 30 curl …`). */
const WRAPPER_ARGS: Record<string, number> = { timeout: 1 };

/**
 * The programs a shell command calls, read with a real bash parser (mvdan/sh): the name of every simple
 * command, also inside `$(…)`, pipelines, conditions and loops, past wrappers like `sudo` or `timeout 30`.
 * Words inside strings, `curl -w` formats, awk programs and here-documents (a script piped to a server
 * runs there, not in the sandbox) are data and never read as programs. `command -v x` only asks. A
 * command that does not parse names nothing: the plan verifier reports its syntax.
 *
 * @example programsOf('hcloud server create --name x && printf "%s" "$(hcloud server ip x)" > .t')  // ['hcloud', 'printf']
 */
export function programsOf(command: string): string[] {
  const sh = shSyntax();
  const file: ShNode | undefined = parseShell(command);
  if (!file) return [];
  const found = new Set<string>();
  sh.Walk(file, (node) => {
    if (!node || sh.NodeType(node) !== 'CallExpr') return true;
    const args = node.Args ?? [];
    let i = 0;
    for (;;) {
      const name = literal(args[i]);
      if (name === undefined) break;
      if (name === 'command' && literal(args[i + 1])?.startsWith('-')) break;
      if (!WRAPPERS.has(name) && WRAPPER_ARGS[name] === undefined) {
        if (PROGRAM.test(name)) found.add(name);
        break;
      }
      i += 1 + (WRAPPER_ARGS[name] ?? 0);
      // The wrapper's own options and env's assignments come before the program.
      while (i < args.length && /^(-|[A-Za-z_][A-Za-z0-9_]*=)/.test(literal(args[i]) ?? '-')) i += 1;
    }
    return true;
  });
  return [...found];
}

/** Each program the plan's steps call, with the steps that call it, in order of first use. */
export function plannedPrograms(steps: PlannedStep[]): Map<string, number[]> {
  const programs = new Map<string, number[]>();
  for (const step of steps) {
    for (const program of programsOf(step.command ?? '')) {
      const list = programs.get(program) ?? [];
      list.push(step.stepNumber);
      programs.set(program, list);
    }
  }
  return programs;
}

/** The command run inside the sandbox: prints each of `programs` (PROGRAM words: nothing to quote) that `command -v` cannot find. */
export function missingProgramsCommand(programs: Iterable<string>): string {
  return `for t in ${[...programs].join(' ')}; do command -v -- "$t" >/dev/null 2>&1 || printf '%s\\n' "$t"; done`;
}

/** The missing programs `missingProgramsCommand` printed, with the steps that call them. */
export function missingTools(printed: string, programs: Map<string, number[]>): SandboxMissingTool[] {
  return printed
    .split('\n')
    .filter((name) => programs.has(name))
    .map((tool) => ({ tool, steps: programs.get(tool)! }));
}
