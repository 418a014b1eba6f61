import type { Step } from '../../../shared/api/execution';
import { DOCUMENTATION } from '../../../shared/constants/documentation';

/**
 * What the documents say about validation, rendered when they are read from the server's own record of the
 * checks: the latest result of each check with its time, and whether the texts were written before a result
 * that differs (then they say they are out of date). Pure: the documentation service feeds it.
 */

/** One check's result as the documents were written from it (`project_documentation.validation_basis`). */
export interface BasisEntry {
  step_number: number;
  status: string;
  finished_at: string | null;
}

export const basisOf = (steps: Step[]): BasisEntry[] => steps.map((s) => ({ step_number: s.step_number, status: s.status, finished_at: s.finished_at ?? null }));

/** `2026-11-28 03:52:10 UTC`: the documents' times, in one zone for everyone who reads them. */
export const utc = (iso: string): string => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

const RESULT: Record<string, string> = {
  completed: 'passed',
  failed: 'failed',
  waiting_approval: 'not run (waiting for approval)',
  pending: 'not run',
  rejected: 'not run (rejected)',
  in_progress: 'running',
};
const resultOf = (status: string): string => RESULT[status] ?? status.replace(/_/g, ' ');
const titleOf = (s: Step): string => s.description || `Validation Step ${s.step_number}`;
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** Why a failed check failed, in its own words: the last line it printed, else its error. */
function failureOf(s: Step): string {
  const last = (s.output ?? '').split('\n').map((l) => l.trim()).filter(Boolean).pop();
  const text = last ?? s.error_message ?? '';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The verdict in one sentence: how many of how many passed, when they were last checked, which failed. */
export function verdictOf(steps: Step[]): string {
  if (!steps.length) return 'Nothing was verified: no validation check has run.';
  const passed = steps.filter((s) => s.status === 'completed').length;
  const times = steps.map((s) => s.finished_at).filter((t): t is string => Boolean(t)).sort();
  const when = times.length ? ` (last checked ${utc(times.at(-1)!)})` : '';
  if (passed === steps.length) return `All ${passed} checks passed${when}.`;
  const failed = steps.filter((s) => s.status === 'failed').map((s) => `check ${s.step_number} (${titleOf(s)})`);
  const open = steps.length - passed - failed.length;
  return [
    `${passed} of ${steps.length} checks passed${when}`,
    failed.length ? `; failed: ${failed.join(', ')}` : '',
    open ? `; ${open} did not run` : '',
    ', so the deployment is not verified.',
  ].join('');
}

/** The full documentation's section: the verdict and a table of every check's latest result and time. */
export function resultsSection(steps: Step[]): string {
  return [
    `## ${DOCUMENTATION.resultsHeading}`,
    '',
    verdictOf(steps),
    '',
    ...(steps.length
      ? [
          '| Check | Result | When |',
          '| --- | --- | --- |',
          ...steps.map((s) => {
            const result = s.status === 'failed' ? `**failed**${failureOf(s) ? `: ${cell(failureOf(s))}` : ''}` : resultOf(s.status);
            return `| ${s.step_number}. ${cell(titleOf(s))} | ${result} | ${s.finished_at ? utc(s.finished_at) : '—'} |`;
          }),
          '',
          'Re-executing a check from the validation stage updates this section.',
        ]
      : []),
  ].join('\n');
}

/** The quick start's short form: the verdict and, for each failed check, why. */
export function resultsSummary(steps: Step[]): string {
  const failed = steps.filter((s) => s.status === 'failed');
  return [
    `**${DOCUMENTATION.resultsHeading}:** ${verdictOf(steps)}`,
    ...failed.map((s) => `- Check ${s.step_number} (${titleOf(s)}) failed${s.finished_at ? ` at ${utc(s.finished_at)}` : ''}${failureOf(s) ? `: ${failureOf(s)}` : ''}`),
  ].join('\n');
}

/**
 * What changed in the results since the texts were written from `basis`, in words; empty when nothing did
 * (a check run again with the same result changes nothing the documents say).
 */
export function changesSince(basis: BasisEntry[], steps: Step[]): string[] {
  const before = new Map(basis.map((b) => [b.step_number, b.status]));
  const changes: string[] = [];
  for (const s of steps) {
    const was = before.get(s.step_number);
    if (was === s.status) continue;
    const at = s.finished_at ? ` at ${utc(s.finished_at)}` : '';
    if (was === undefined) changes.push(`check ${s.step_number} (${titleOf(s)}) was added (${resultOf(s.status)})`);
    else if (s.status === 'failed') changes.push(`check ${s.step_number} (${titleOf(s)}) failed${at}`);
    else if (s.status === 'completed') changes.push(`check ${s.step_number} (${titleOf(s)}) passed${at} (it was ${resultOf(was)})`);
    else changes.push(`check ${s.step_number} (${titleOf(s)}) is now ${resultOf(s.status)}`);
  }
  const now = new Set(steps.map((s) => s.step_number));
  for (const b of basis) if (!now.has(b.step_number)) changes.push(`check ${b.step_number} was removed`);
  return changes;
}

/** The note the documents start with when they were written before results that differ. */
export function outOfDateNote(writtenAt: string, changes: string[]): string {
  return `**Out of date.** This document was written at ${utc(writtenAt)}; since then ${changes.join('; ')}. The validation results in it are current; regenerate the documentation to bring the rest up to date.`;
}

/**
 * The text as read: the out-of-date note first (as a quote), and the results where the writer left
 * `DOCUMENTATION.resultsMarker`, else at the end.
 */
export function withResults(text: string, results: string, note: string | null): string {
  const body = text.includes(DOCUMENTATION.resultsMarker) ? text.split(DOCUMENTATION.resultsMarker).join(results) : `${text.trimEnd()}\n\n${results}\n`;
  return note ? `> ${note}\n\n${body}` : body;
}
