import type { PlanFinding } from './api/planning';

/**
 * The reason a plan with verifier errors cannot be confirmed, naming the first of them (undefined when it
 * can be). The server's 409 and the app's disabled confirm say the same. No TypeBox here: the app imports it.
 */
export function blockingReason(findings: readonly PlanFinding[] | undefined): string | undefined {
  const errors = (findings ?? []).filter((f) => f.severity === 'error');
  if (!errors.length) return undefined;
  const first = errors[0]!;
  return `The plan has ${errors.length === 1 ? 'an error' : `${errors.length} errors`} to fix before it can be confirmed (ask the assistant to fix ${errors.length === 1 ? 'it' : 'them'}): ${first.where ? `${first.where}: ` : ''}${first.message}`;
}
