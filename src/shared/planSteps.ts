/**
 * Reads the implementation plan the planning agents write (see agents/offline/documents.ts and the
 * implementation tool's description): `## Step N: <title>` sections in order, each with a description and
 * one or more ```bash blocks of exact commands. The commands are taken byte for byte; nothing is rephrased.
 */

export interface PlannedStep {
  stepNumber: number;
  /** The section title: what the step card shows. */
  description: string;
  /** The section's prose: what the execution agent is asked to do. */
  prompt: string;
  /** The section's shell blocks joined by newlines; null when the section has none. */
  command: string | null;
}

// The dashes as escapes: one character above U+00FF in the bundle makes its whole source two-byte (buildServer.ts).
const HEADING = /^#{2,3}[ \t]*Step[ \t]+(\d+)[ \t]*[:.)\-\u2013\u2014]?[ \t]*(.*)$/gim;
const FENCE = /^```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
const SHELLS = new Set(['', 'bash', 'sh', 'shell', 'console', 'zsh']);

/** The steps of a plan in document order, renumbered 1..n so a gap or a duplicate cannot confuse approvals. */
export function parsePlanSteps(plan: string): PlannedStep[] {
  const text = plan.replace(/\r\n/g, '\n');
  const headings = [...text.matchAll(HEADING)];
  return headings.map((heading, i) => {
    const start = heading.index! + heading[0].length;
    // A section ends at the next step heading or the next heading of the same or a higher level.
    const nextStep = headings[i + 1]?.index ?? text.length;
    const otherHeading = text.slice(start).search(/^#{1,2}[ \t]+(?!Step[ \t]+\d)/im);
    const end = otherHeading >= 0 ? Math.min(nextStep, start + otherHeading) : nextStep;
    const body = text.slice(start, end);
    const blocks = [...body.matchAll(FENCE)].filter((m) => SHELLS.has(m[1]!.toLowerCase()));
    const commands = blocks.map((m) => m[2]!.replace(/\n$/, '')).filter((c) => c.trim());
    const prose = body.replace(FENCE, '').replace(/\n{3,}/g, '\n\n').trim();
    const title = heading[2]!.trim();
    return {
      stepNumber: i + 1,
      description: title,
      prompt: prose || title,
      command: commands.length ? commands.join('\n') : null,
    };
  });
}
