import type { PlannerReply, Turn } from './plannerTypes';
import { stepChange } from './stepChange';

/** The execution agent's tools (see services/execution/executionAgent.ts). */
import { EXECUTION_TOOLS } from '../toolNames';

export { EXECUTION_TOOLS };

interface StepView {
  step_number: number;
  status: string;
  description: string;
  command: string | null;
  output: string | null;
  error_message: string | null;
}

const tail = (text: string, lines: number): string => text.trimEnd().split('\n').slice(-lines).join('\n');

/**
 * The offline execution agent: answers questions about the run from the `<execution_steps>` block of its
 * system prompt (status, a failed step's error and output), proposes changes to a step when asked with
 * the parts in backticks ("change step 2: use `docker compose up -d --wait`", "step 3: replace `a` with
 * `b`"; see stepChange.ts), and adds steps ("add a step to check the disk: `df -h`").
 */
export function executionReply(steps: StepView[], turns: Turn[]): PlannerReply {
  const message = [...turns].reverse().find((t) => t.role === 'user')?.content ?? '';
  if (!steps.length) return { text: 'There is no execution plan yet: confirm the implementation plan to start execution.', toolCalls: [] };

  const target = /\b(?:change|set|update|replace|fix|edit|use|modify)\b[^`]*?\bstep\s+(\d+)/i.exec(message) ?? /^\s*step\s+(\d+)\b/i.exec(message);
  if (target && message.includes('`')) {
    const n = Number(target[1]);
    const step = steps.find((s) => s.step_number === n);
    if (!step) return { text: `There is no step ${n}; the plan has ${steps.length} steps.`, toolCalls: [] };
    const change = stepChange(step.command ?? '', message.slice(target.index + target[0].length));
    if ('question' in change) return { text: change.question, toolCalls: [] };
    const args = 'edits' in change ? { step_number: n, edits: change.edits, reason: message } : { step_number: n, command: change.command, reason: message };
    const what = 'edits' in change ? `${change.edits.length} part${change.edits.length === 1 ? '' : 's'} of its command (the rest stays as it is)` : 'its whole command';
    return {
      text: `I prepared a change to step ${n}: ${what}. Review the difference on the step card, then save or discard it; a saved step waits for your approval again.`,
      toolCalls: [{ name: EXECUTION_TOOLS.updateStep, args }],
    };
  }
  const add = message.match(/\badd\b(?:\s+a)?\s+step\b\s*(?:to\s+)?([^`:]*)[:\s]*`([^`]+)`/i);
  if (add) {
    const description = add[1]!.trim().replace(/^./, (c) => c.toUpperCase()) || 'Additional step';
    const command = add[2]!;
    return {
      text: `I added step ${steps.length + 1} (${description}) to run \`${command}\`. It waits for your approval.`,
      toolCalls: [{ name: EXECUTION_TOOLS.addStep, args: { description, prompt: description, command } }],
    };
  }
  const failed = steps.filter((s) => s.status === 'failed');
  if (/\b(fail|failed|error|wrong|why)\b/i.test(message)) {
    if (!failed.length) return { text: 'No step has failed.', toolCalls: [] };
    const text = failed
      .map((s) =>
        [
          `Step ${s.step_number} (${s.description || `Execution Step ${s.step_number}`}) failed: ${s.error_message ?? 'no error message'}`,
          s.output ? `Last lines of its output:\n\`\`\`\n${tail(s.output, 15)}\n\`\`\`` : 'It printed nothing.',
        ].join('\n'),
      )
      .join('\n\n');
    return { text: `${text}\n\nFix the cause (or ask me to change the command), then re-execute the step.`, toolCalls: [] };
  }
  const completed = steps.filter((s) => s.status === 'completed').length;
  const running = steps.find((s) => s.status === 'in_progress');
  const waiting = steps.filter((s) => s.status === 'waiting_approval').map((s) => s.step_number);
  const lines = [
    `${completed} / ${steps.length} steps completed.`,
    running ? `Step ${running.step_number} is running now.` : 'Nothing is running now.',
    waiting.length ? `Waiting for your approval: step${waiting.length > 1 ? 's' : ''} ${waiting.join(', ')}.` : '',
    failed.length ? `Failed: step${failed.length > 1 ? 's' : ''} ${failed.map((s) => s.step_number).join(', ')} (ask me why).` : '',
  ].filter(Boolean);
  return { text: lines.join('\n'), toolCalls: [] };
}
