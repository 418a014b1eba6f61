import type { PlannerReply, Turn } from './plannerTypes';
import { readStackDefinition, readStackModel } from './documents';
import { deployedStack, modelChecks, serverChecks, type Check } from './serverChecks';
import { DRILL_SCRIPT } from './backupScripts';

/** The validation and documentation agents' tools (see services/validation). */
import { VALIDATION_TOOLS } from '../toolNames';
import { DOCUMENTATION } from '../../../shared/constants/documentation';

export { VALIDATION_TOOLS };

interface StepView {
  step_number: number;
  status: string;
  description: string;
  command: string | null;
  output?: string | null;
  error_message?: string | null;
}

/** `~/x` becomes `$HOME/x` so that it expands inside double quotes. */
const homeOf = (path: string): string => path.replace(/^~(?=\/)/, '$HOME');
const quoted = (path: string): string => `"${homeOf(path)}"`;

/** Paths a shell command creates: `cat > f <<`, `> f`, `tee f`, `ssh-keygen -f f` (and its .pub), `mkdir -p d`. */
export function createdPaths(command: string): { files: string[]; dirs: string[] } {
  const files = new Set<string>();
  const dirs = new Set<string>();
  // Heredoc bodies are content, not commands: drop them before looking for redirections.
  const text = command.replace(/<<-?\s*'?(\w+)'?[^\n]*\n[\s\S]*?\n\1(?=\n|$)/g, (m) => m.split('\n')[0]!);
  for (const m of text.matchAll(/(?:^|[^0-9&>])>{1,2}\s*([~\w./-]+)/g)) files.add(m[1]!);
  for (const m of text.matchAll(/\btee\s+(?:-a\s+)?([~\w./-]+)/g)) files.add(m[1]!);
  // Only a key generation writes files: `ssh-keygen -l/-y/-F -f file` reads one.
  for (const m of text.matchAll(/\bssh-keygen\b(?![^\n;&|)]*\s-[lyFR]\b)[^\n;&|)]*?\s-f\s+([~\w./-]+)/g)) {
    files.add(m[1]!);
    files.add(`${m[1]!}.pub`);
  }
  for (const m of text.matchAll(/\bmkdir\s+((?:-[a-z]+\s+)*)([~\w./ -]+?)\s*(?=$|[;&|)\n])/gm)) {
    for (const dir of m[2]!.split(/\s+/)) if (dir && !dir.startsWith('-')) dirs.add(dir);
  }
  const keep = (p: string): boolean => !p.startsWith('/dev/') && !p.startsWith('/etc/') && !p.startsWith('/opt/') && !p.startsWith('/tmp') && p !== '/dev/null';
  return { files: [...files].filter(keep), dirs: [...dirs].filter(keep) };
}

const loop = (kind: '-f' | '-d', paths: string[], noun: string): string =>
  `for p in ${paths.map(quoted).join(' ')}; do test ${kind} "$p" || { echo "missing ${noun}: $p" >&2; exit 1; }; echo "found ${noun}: $p"; done`;

/**
 * Read-only checks of what the executed steps built: the files and folders they wrote exist, compose
 * files and Terraform configurations are valid (with their own tools when the sandbox has them), and a
 * listing of the workspace. Nothing here changes a file, a server or a cloud account.
 */
export function validationChecks(executed: StepView[], implementationPlan = ''): Check[] {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const step of executed) {
    if (!step.command) continue;
    const found = createdPaths(step.command);
    found.files.forEach((f) => files.add(f));
    found.dirs.forEach((d) => dirs.add(d));
  }
  const planned = readStackDefinition(implementationPlan)?.facts;
  const plan = { domain: planned?.domain, tls: planned?.tls };
  // A stack the plan deploys to a server is validated live, whatever the executed steps became: a step
  // changed to `echo` deployed nothing, and the checks must say so. Workspace files prove nothing about it.
  const plannedCommands = [...implementationPlan.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const deployed = deployedStack(executed.flatMap((s) => (s.command ? [s.command] : [])), plan) ?? deployedStack(plannedCommands, plan);
  if (deployed) {
    const model = readStackModel(implementationPlan);
    return [...serverChecks(deployed, model?.serverFacts?.portsInUse.map((p) => p.port)), ...(model ? modelChecks(model, deployed, implementationPlan.includes(DRILL_SCRIPT)) : [])];
  }
  const checks: Check[] = [];
  if (dirs.size) checks.push({ title: 'Check the folders the execution created', description: 'Every folder the executed steps created is in the workspace.', commands: [loop('-d', [...dirs], 'folder')] });
  if (files.size) checks.push({ title: 'Check the files the execution wrote', description: 'Every file the executed steps wrote is in the workspace.', commands: [loop('-f', [...files], 'file')] });
  const keys = [...files].filter((f) => /\.pub$/.test(f));
  if (keys.length) {
    checks.push({
      title: 'Check the deploy key',
      description: 'The public key parses and shows its fingerprint (the private key is never printed).',
      commands: keys.map((k) => `ssh-keygen -l -f ${quoted(k)}`),
    });
  }
  for (const compose of [...files].filter((f) => /(^|\/)(docker-)?compose\.ya?ml$/.test(f))) {
    const q = quoted(compose);
    checks.push({
      title: `Validate ${compose.replace(/^.*\//, '')}`,
      description: 'The compose file is valid: `docker compose config` when the sandbox has Docker, else its services are declared.',
      commands: [
        `if command -v docker >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then docker compose -f ${q} config -q && echo "compose file is valid"; else grep -q '^services:' ${q} && echo "docker is not available in the sandbox: ${compose} declares its services"; fi`,
      ],
    });
  }
  const tfDirs = [...new Set([...files].filter((f) => f.endsWith('.tf')).map((f) => f.replace(/\/[^/]+$/, '') || '.'))];
  for (const dir of tfDirs) {
    checks.push({
      title: `Validate the Terraform configuration in ${dir}`,
      description: '`terraform validate` when the sandbox has Terraform (read-only: no plan, no apply).',
      commands: [`if command -v terraform >/dev/null 2>&1; then terraform -chdir=${quoted(dir)} init -backend=false -input=false >/dev/null && terraform -chdir=${quoted(dir)} validate; else ls ${quoted(dir)}/*.tf && echo "terraform is not available in the sandbox"; fi`],
    });
  }
  checks.push({
    title: 'List the workspace',
    description: 'What the workspace holds now, for the documentation.',
    commands: ["find . -maxdepth 2 -not -path './.git' -not -path './.git/*' | sort | head -200"],
  });
  return checks;
}

/** The validation plan as markdown, in the `## Step N: title` form the trigger reads (src/shared/planSteps.ts). */
export function renderValidationPlan(executed: StepView[], implementationPlan = ''): string {
  const checks = validationChecks(executed, implementationPlan);
  const live = checks.some((c) => c.commands.some((x) => x.includes('da-server')));
  const what = live ? 'the running system that' : 'what';
  return [
    '# Validation Plan',
    '',
    `Read-only checks of ${what} the ${executed.length} executed step${executed.length === 1 ? '' : 's'} ${live ? 'deployed, over SSH and from outside' : 'built'}, run in the project sandbox after your approval.`,
    '',
    ...checks.flatMap((c, i) => [`## Step ${i + 1}: ${c.title}`, '', c.description, '', '```bash', c.commands.join('\n'), '```', '']),
  ].join('\n');
}

/**
 * The offline validation agent: asked for a plan (or when none exists), it writes read-only checks of the
 * executed steps (`<execution_steps>`, completed ones) and saves them; otherwise it answers about the
 * validation steps (`<validation_steps>`).
 */
export function validationReply(executionSteps: StepView[], validationSteps: StepView[], hasPlan: boolean, turns: Turn[], implementationPlan = ''): PlannerReply {
  const message = [...turns].reverse().find((t) => t.role === 'user')?.content ?? '';
  if (!hasPlan || /\b(create|make|write|new)\b.*\bplan\b/i.test(message)) {
    const executed = executionSteps.filter((s) => s.status === 'completed');
    const plan = renderValidationPlan(executed, implementationPlan);
    return { text: plan, toolCalls: [{ name: VALIDATION_TOOLS.savePlan, args: { plan } }] };
  }
  if (!validationSteps.length) return { text: 'The validation plan is ready; validation starts when it is triggered.', toolCalls: [] };
  const completed = validationSteps.filter((s) => s.status === 'completed').length;
  const failed = validationSteps.filter((s) => s.status === 'failed');
  const lines = [
    `${completed} / ${validationSteps.length} validation steps completed.`,
    ...failed.map((s) => `Step ${s.step_number} (${s.description || `Validation Step ${s.step_number}`}) failed: ${s.error_message ?? 'no error message'}`),
  ];
  return { text: lines.join('\n'), toolCalls: [] };
}

/** What the documentation agent reads (the tagged blocks of its system prompt). */
export interface DocumentationContext {
  projectName: string;
  requirements: string;
  architecture: string;
  implementation: string;
  executionSteps: StepView[];
  validationSteps: StepView[];
  keyValueData: Record<string, unknown>;
}

const firstParagraph = (text: string): string =>
  text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p && !p.startsWith('#') && !p.startsWith('```')) ?? '';

const stepList = (steps: StepView[], fallback: (n: number) => string): string[] =>
  steps.map((s) => `${s.step_number}. **${s.description || fallback(s.step_number)}** — ${s.status.replace(/_/g, ' ')}`);

/**
 * The offline documentation writer: a full documentation and a quick start guide in markdown from the
 * project's requirements, architecture, implementation plan and the executed and validation steps.
 * Secret values never reach it (only their names are in the documents).
 */
export function documentationReply(ctx: DocumentationContext): PlannerReply {
  const facts = Object.entries(ctx.keyValueData).map(([k, v]) => `| ${k} | ${typeof v === 'string' ? v : JSON.stringify(v)} |`);
  const summary = firstParagraph(ctx.requirements.replace(/^.*Summary:?\s*$/im, '')) || `Infrastructure of ${ctx.projectName}.`;
  const executed = ctx.executionSteps.filter((s) => s.status === 'completed');
  const documentation = [
    `# ${ctx.projectName}: Infrastructure Documentation`,
    '',
    '## Overview',
    '',
    summary,
    '',
    '## Requirements',
    '',
    ctx.requirements.trim() || 'No requirements were recorded.',
    '',
    '## Architecture',
    '',
    ctx.architecture.trim().replace(/^# .*\n/, '') || 'No architecture plan was recorded.',
    '',
    '## What was executed',
    '',
    ...(ctx.executionSteps.length ? stepList(ctx.executionSteps, (n) => `Execution Step ${n}`) : ['No steps were executed.']),
    '',
    // The server renders the latest validation results here whenever the documentation is read.
    DOCUMENTATION.resultsMarker,
    '',
    '## Configuration',
    '',
    '| Key | Value |',
    '| --- | --- |',
    ...facts,
    '',
    '## Operations',
    '',
    '- The workspace holds the deploy key, the stack files and the commands history (a commit per executed step).',
    '- Back the sandbox up before stopping it: files are restored from the latest backup when it starts again.',
    '- Secrets live in User Secrets and reach commands as environment variables. The stack\'s `.env` (mode 600) holds them in the workspace and on the server; the step history never records it or private keys, and downloads leave them out unless you ask for them.',
    '',
  ].join('\n');
  const quickstart = [
    `# ${ctx.projectName}: Quick Start`,
    '',
    summary,
    '',
    '## Before you begin',
    '',
    '- Start the project sandbox from the project home and open the DevOps Helper or the terminal.',
    '- Make sure the User Secrets the plan names are filled in.',
    '',
    '## Steps that were run',
    '',
    ...(executed.length ? executed.map((s, i) => `${i + 1}. ${s.description || `Execution Step ${s.step_number}`}${s.command ? `\n\n   \`\`\`bash\n   ${s.command.split('\n')[0]}\n   \`\`\`` : ''}`) : ['Nothing has been executed yet.']),
    '',
    '## Check it',
    '',
    DOCUMENTATION.resultsMarker,
    '',
    'Re-run the checks from the validation stage at any time: they look at the running system again.',
    '',
  ].join('\n');
  return {
    text: `I wrote the infrastructure documentation (${documentation.split('\n## ').length - 1} sections) and a quick start guide for ${ctx.projectName}.`,
    toolCalls: [{ name: VALIDATION_TOOLS.saveDocumentation, args: { documentation, quickstart } }],
  };
}
