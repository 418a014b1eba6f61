import YAML from 'yaml';
import { parsePlanSteps } from '../../../shared/planSteps';
import type { PersonIntent, PlanArtifacts, PlanFile, TargetFacts } from './types';

/**
 * The artifacts of the plans as people and the execution stage read them: the markdown the architect and
 * the implementation planner saved (a real model's as much as the offline planner's). The compose file is
 * the YAML block under a `docker-compose.yml` heading (else the first YAML block with `services`); each
 * configuration file is a code block under a heading that names its path; the steps are read as the
 * execution stage reads them.
 */

const FENCE = /^```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

interface Block {
  heading: string;
  lang: string;
  body: string;
}

/** Code blocks with the heading (or bold line) nearest above each. */
function blocks(markdown: string): Block[] {
  const text = markdown.replace(/\r\n/g, '\n');
  const out: Block[] = [];
  for (const m of text.matchAll(FENCE)) {
    const before = text.slice(0, m.index);
    const heading = [...before.matchAll(/^(?:#{2,4}[ \t]+(.+)|\*\*(.+?)\*\*:?)[ \t]*$/gm)].pop();
    out.push({ heading: (heading?.[1] ?? heading?.[2] ?? '').replace(/`/g, '').trim(), lang: m[1]!.toLowerCase(), body: `${m[2]!.replace(/\n$/, '')}\n` });
  }
  return out;
}

const isComposeName = (heading: string): boolean => /(^|\/)(docker-)?compose\.ya?ml$/i.test(heading.trim());
/** A heading that is a path: no spaces, a dot or slash in it, or a well-known file name. */
const pathOf = (heading: string): string | undefined => {
  const h = heading.trim().replace(/^\.\//, '');
  return /^[\w.-]+(\/[\w.-]+)*$/.test(h) && (/[./]/.test(h) || /^(Caddyfile|Dockerfile)$/.test(h)) ? h : undefined;
};

export function composeOfPlan(architecture: string): string | undefined {
  const all = blocks(architecture);
  const named = all.find((b) => isComposeName(b.heading) && /ya?ml|^$/.test(b.lang));
  if (named) return named.body;
  return all.find((b) => {
    if (!/^ya?ml$/.test(b.lang)) return false;
    try {
      const doc = YAML.parse(b.body) as { services?: unknown } | null;
      return Boolean(doc && typeof doc === 'object' && doc.services);
    } catch {
      return false;
    }
  })?.body;
}

export function filesOfPlan(architecture: string): PlanFile[] {
  const files: PlanFile[] = [];
  for (const b of blocks(architecture)) {
    const path = pathOf(b.heading);
    if (!path || isComposeName(path) || b.lang === 'mermaid' || files.some((f) => f.path === path)) continue;
    files.push({ path, content: b.body });
  }
  return files;
}

/** The secret names listed under the plan's `## Secrets` heading (`- \`NAME\`: …`). */
export function secretsOfPlan(architecture: string): string[] {
  const section = architecture.match(/^## Secrets[ \t]*\n([\s\S]*?)(?=^#{1,2} |$(?![\s\S]))/m)?.[1] ?? '';
  return [...section.matchAll(/^[-*][ \t]+`?([A-Za-z_][A-Za-z0-9_]*)`?/gm)].map((m) => m[1]!);
}

export interface PlanTexts {
  architecture: string;
  implementation?: string;
  /** The User Secrets declared for the project (the requirements' list). */
  secrets?: string[];
  /** The project's stack folder on its server. */
  stackDirectory?: string;
  target?: TargetFacts;
  intent?: PersonIntent;
}

export function artifactsOfPlans(plans: PlanTexts): PlanArtifacts {
  const steps = plans.implementation
    ? parsePlanSteps(plans.implementation).filter((s) => s.command).map((s) => ({ number: s.stepNumber, title: s.description, script: s.command! }))
    : [];
  return {
    composeYaml: composeOfPlan(plans.architecture),
    files: filesOfPlan(plans.architecture),
    steps,
    secrets: [...new Set([...(plans.secrets ?? []), ...secretsOfPlan(plans.architecture)])],
    documents: [
      { name: 'architecture plan', text: plans.architecture },
      ...(plans.implementation ? [{ name: 'implementation plan', text: plans.implementation }] : []),
    ],
    ...(plans.target ? { target: plans.target } : {}),
    ...(plans.stackDirectory ? { stackDirectory: plans.stackDirectory } : {}),
    ...(plans.intent ? { intent: plans.intent } : {}),
  };
}
