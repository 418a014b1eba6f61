import type { PlannerReply, Turn } from './plannerTypes';

/** The DevOps Helper's one tool (see services/devopsHelper/devopsHelperAgent.ts). */
import { DEVOPS_HELPER_TOOLS } from '../toolNames';

export { DEVOPS_HELPER_TOOLS };

/** Questions the offline helper answers with a read-only command of its own. */
const INVESTIGATIONS: Array<{ pattern: RegExp; command: string; why: string }> = [
  { pattern: /\b(disk|space|storage)\b/i, command: 'df -h', why: 'shows how full each filesystem is' },
  { pattern: /\b(memory|ram|swap)\b/i, command: 'free -m', why: 'shows memory and swap use in MB' },
  { pattern: /\b(containers?|docker)\b/i, command: 'docker ps -a', why: 'lists the containers and their state' },
  { pattern: /\b(files?|workspace|directory|folder)\b/i, command: 'ls -la', why: 'lists the workspace' },
  { pattern: /\b(processes|cpu|load)\b/i, command: 'ps aux --sort=-%cpu | head -15', why: 'lists the busiest processes' },
];

/**
 * The command a message asks to run: the first `backticked` command after run/execute (or any backticked
 * command), else `run <command>` to the end of the line.
 *
 * @example commandOf('please run `echo hello-helper`') === 'echo hello-helper'
 */
export function commandOf(message: string): string | undefined {
  const ticked = message.match(/`([^`\n]+)`/);
  if (ticked?.[1]?.trim()) return ticked[1].trim();
  const plain = message.match(/^\s*(?:please\s+)?(?:run|execute|exec)\s*:?\s+(.+)$/im);
  return plain?.[1]?.trim() || undefined;
}

/**
 * The offline DevOps Helper: when the person asks to run something it proposes exactly that command
 * (which runs only after their approval); for common questions (disk, memory, containers, files,
 * processes) it proposes a read-only command; otherwise it says what it can do.
 */
export function devopsHelperReply(turns: Turn[]): PlannerReply {
  const message = [...turns].reverse().find((t) => t.role === 'user')?.content ?? '';
  const command = commandOf(message);
  if (command) {
    return {
      text: `I will run \`${command}\` in the project sandbox once you approve it.`,
      toolCalls: [{ name: DEVOPS_HELPER_TOOLS.runCommand, args: { command } }],
    };
  }
  const investigation = INVESTIGATIONS.find((i) => i.pattern.test(message));
  if (investigation) {
    return {
      text: `Let me check: \`${investigation.command}\` ${investigation.why}. It runs once you approve it.`,
      toolCalls: [{ name: DEVOPS_HELPER_TOOLS.runCommand, args: { command: investigation.command } }],
    };
  }
  return {
    text: [
      "I'm the DevOps Helper. I can investigate and change things in your project's sandbox (and, through it, on your VPS):",
      'ask me to run a command, e.g. "run `docker ps`", or ask about disk space, memory, containers, files or processes.',
      'Every command is shown to you first and runs only after you approve it.',
    ].join(' '),
    toolCalls: [],
  };
}
