import type { SandboxMissingTool } from '../../../shared/api/sandbox';
import type { PlannedStep } from '../execution/planSteps';

/** A word that can name a program: no quotes, expansions, paths or assignments. */
const PROGRAM = /^[A-Za-z][A-Za-z0-9._+-]*$/;
/** Words that run the next word as the program. */
const PREFIXES = new Set(['sudo', 'env', 'exec', 'time', 'nohup', 'command', 'xargs', 'then', 'do', 'else', 'if', 'while', 'until', '!']);
/** `<<EOF`, `<<-'EOF'`, `<< "EOF"`: the delimiter of a here-document. */
const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/;

/**
 * The programs a shell command calls, in order: the first word of each simple command (after `|`, `;`,
 * `&&`, `||`, `(`, `$(`, a backtick), skipping variable assignments and prefixes like `sudo`, and never
 * reading into a here-document's text. A heuristic, not a shell parser: it errs toward naming a word that
 * `command -v` then finds (builtins and keywords are found), never toward missing a real program.
 *
 * @example programsOf('hcloud server create --name x && printf "%s" "$(hcloud server ip x)" > .t')  // ['hcloud', 'printf']
 */
export function programsOf(command: string): string[] {
  const found = new Set<string>();
  let heredocEnd: string | null = null;
  for (const line of command.split('\n')) {
    if (heredocEnd !== null) {
      if (line.trim() === heredocEnd) heredocEnd = null;
      continue;
    }
    heredocEnd = HEREDOC.exec(line)?.[2] ?? null;
    // Single-quoted text is data (an awk program, a JSON body); double quotes may hold a `$(...)`.
    const code = line
      .replace(/<<-?\s*(['"]?)[A-Za-z_][A-Za-z0-9_]*\1/g, ' ')
      .replace(/'[^']*'/g, "''")
      .replace(/(^|\s)#.*$/, '');
    for (const segment of code.split(/\|\||&&|[|;&(`{}]|\$\(/)) {
      const words = segment.trim().split(/\s+/).filter(Boolean);
      let i = 0;
      while (i < words.length && (PREFIXES.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || words[i]!.startsWith('-'))) i++;
      const word = words[i];
      if (word && PROGRAM.test(word)) found.add(word);
    }
  }
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
