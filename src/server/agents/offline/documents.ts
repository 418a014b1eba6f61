import YAML from 'yaml';
import { REQUIREMENTS_DOCUMENT } from '../../../shared/constants/planning';
import { COMPONENTS, type SecretSpec } from './components';
import { mermaidDiagram, SYSTEM_DISK_GB, type Stack } from './composer';
import { planSteps } from './deploySteps';
import { emptyFacts, type Facts, type ProviderId, type ProxyId } from './facts';
import { readSshTarget, sshTargetLabel } from './sshTarget';

/**
 * The offline planner's documents: the requirements document (part 1 section 3), the architecture
 * plan (compose file, files, diagram) and the implementation plan (ordered steps with exact commands).
 */

export const TO_CONFIRM = 'To be confirmed';

export interface Unknowns {
  workload?: boolean;
  provider?: boolean;
  region?: boolean;
  domain?: boolean;
  load?: boolean;
}

const list = (items: string[]): string => items.map((i) => `- ${i}`).join('\n');

export function secretsSection(secrets: SecretSpec[]): string {
  return [
    REQUIREMENTS_DOCUMENT.stopLine,
    ...secrets.map((s) => `- ${s.name} (${s.required ? 'required' : 'optional'}, ${s.secret_type}): ${s.description}`),
  ].join('\n');
}

/** The requirements document for a stack; what is still open reads 'To be confirmed'. */
export function renderRequirements(stack: Stack, unknowns: Unknowns, now = new Date()): string {
  const m = stack.machine;
  const f = stack.facts;
  const labels = stack.components.map((c) => c.label);
  const where = unknowns.provider ? 'a server still to be chosen' : m.providerLabel;
  const summary = unknowns.workload
    ? `${TO_CONFIRM}: what the server should run.`
    : `A docker-compose stack on ${where} running ${labels.join(', ')}${stack.tls ? `, served over HTTPS at ${stack.domain}` : stack.domain ? ` at ${stack.domain}` : ''}.`;
  const requiredStack = [
    'Docker Engine with the Compose v2 plugin on Ubuntu 24.04 LTS',
    ...stack.components.flatMap((c) =>
      c.services.filter((s) => stack.services.some((x) => x.name === s.name)).map((s) => `${c.label}: ${s.name} (${s.image === 'build' ? `built from ${stack.repository?.fullName ?? 'the application repository'}` : s.image}) — ${c.purpose}`),
    ),
    ...(f.appLanguage && stack.services.some((s) => s.name === 'app') ? [`Application language: ${f.appLanguage}`] : []),
  ];
  const config: string[] = [];
  if (unknowns.domain) config.push(`Domain: ${TO_CONFIRM}`);
  else if (stack.domain) config.push(`Domain: ${stack.domain} (DNS A records for ${stack.routes.map((r) => r.host).join(', ')} → the server's public IP)`);
  else config.push("Access: by the server's public IP address");
  if (stack.tls) config.push("Certificates: Let's Encrypt, issued and renewed automatically");
  const volumes = Object.keys((stack.compose.volumes as object | undefined) ?? {});
  if (volumes.length) config.push(`Persistent volumes: ${volumes.join(', ')}`);
  config.push('Networks: edge (reachable from outside through published ports) and backend (internal only, no route out)');
  const secretNames = stack.secrets.map((s) => s.name);
  config.push(`Credentials come from User Secrets as environment variables (${secretNames.join(', ')}); none are written into files in the repository`);
  for (const n of stack.notes) config.push(n);

  const integrations: string[] = [];
  for (const s of stack.services) for (const d of s.dependsOn ?? []) if (!stack.routes.some((r) => r.service === d && ['caddy', 'proxy', 'traefik'].includes(s.name))) integrations.push(`${s.name} → ${d}`);
  for (const r of stack.routes) integrations.push(`${stack.components.find((c) => c.category === 'proxy')?.label ?? 'proxy'} → ${r.service}:${r.port} for ${r.host}`);
  if (stack.services.some((s) => s.name === 'grafana')) integrations.push('Grafana reads Prometheus through a provisioned datasource');
  if (!integrations.length) integrations.push(`Standalone: ${stack.services.map((s) => s.name).join(', ')} (no service-to-service links)`);

  const scale = [
    `Expected load: ${unknowns.load ? TO_CONFIRM : f.load ?? 'light (up to about 100 concurrent users)'}`,
    `Memory: about ${stack.memoryMb < 1024 ? `${stack.memoryMb} MB` : `${(stack.memoryMb / 1024).toFixed(1)} GB`} across containers`,
    `Disk: ${m.diskGb} GB`,
    'Single host; scale up by moving to a larger machine size',
  ];
  const ports = [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]))];
  const cloud = [
    `Provider: ${unknowns.provider ? TO_CONFIRM : m.providerLabel}`,
    `Compute: ${unknowns.provider ? TO_CONFIRM : `${m.instanceType} (${m.vcpus} vCPU, ${m.memoryGb} GB RAM), Ubuntu 24.04 LTS`}`,
    `Storage: ${m.diskGb} GB SSD root volume, encrypted; Docker volumes for data`,
    m.provider === 'vps'
      ? `Networking: inbound ${ports.map((p) => `${p}/tcp`).join(', ') || 'no new port'} opened where a host firewall is active; SSH (${f.sshTarget?.port ?? 22}) and the server's other services left as they are`
      : `Networking: public IPv4; inbound ${['22 (from ADMIN_CIDR only)', ...ports.map((p) => `${p}/tcp`)].join(', ')}; everything else closed`,
    `Region: ${unknowns.region || unknowns.provider ? TO_CONFIRM : m.region}`,
  ];
  const userDetails = [
    ...stack.secrets.map((s) => `${s.name}: ${s.description}`),
    ...(stack.domain ? [`DNS: A records for ${stack.routes.map((r) => r.host).join(', ')} at your DNS provider`] : []),
  ];
  return [
    `Summary:\n${summary}`,
    `Required Stack:\n${list(unknowns.workload ? [`Docker Engine with the Compose v2 plugin; the workload is ${TO_CONFIRM}`] : requiredStack)}`,
    `Configuration Requirements:\n${list(config)}`,
    `Service Integrations:\n${list(unknowns.workload ? [TO_CONFIRM] : integrations)}`,
    `Scale & Resource Requirements:\n${list(scale)}`,
    `Cloud Specifications:\n${list(cloud)}`,
    `Required User Details:\n${list(userDetails)}`,
    `${REQUIREMENTS_DOCUMENT.generatedOnPrefix}: ${now.toISOString()}`,
    '',
    secretsSection(stack.secrets),
  ].join('\n\n');
}

// ---------------------------------------------------------------------------------------------------
// Stack definition: the exact facts a plan was made from, readable by people and by the next agent.
// ---------------------------------------------------------------------------------------------------

const DEFINITION_HEADING = '## Stack definition';

export function stackDefinition(stack: Stack): string {
  const f = stack.facts;
  const rows: Array<[string, string | undefined]> = [
    ['Components', [...stack.components.filter((c) => c.category !== 'proxy').map((c) => c.id)].join(', ')],
    ['Reverse proxy', stack.proxy],
    ['Domain', stack.domain],
    ['TLS', stack.tls ? 'yes' : 'no'],
    ['Provider', stack.machine.provider],
    ['Region', stack.machine.region],
    ['Instance type', stack.machine.instanceType],
    ['Memory GB', String(stack.machine.memoryGb)],
    ['vCPUs', String(stack.machine.vcpus)],
    ['Disk GB', String(stack.machine.diskGb)],
    ['Load', f.load],
    ['Application language', f.appLanguage],
    ['Repository', stack.repository ? `${stack.repository.fullName}@${stack.repository.branch}` : undefined],
    ['SSH target', f.sshTarget ? sshTargetLabel(f.sshTarget) : undefined],
  ];
  return [DEFINITION_HEADING, '', ...rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `- ${k}: ${v}`)].join('\n');
}

/** Reads a plan's stack definition back into facts (undefined when the text has none). */
export function readStackDefinition(text: string): { facts: Facts; repository?: { fullName: string; branch: string } } | undefined {
  const start = text.indexOf(DEFINITION_HEADING);
  if (start < 0) return undefined;
  const body = text.slice(start + DEFINITION_HEADING.length).split(/\n(?=#)/)[0]!;
  const get = (k: string): string | undefined => body.match(new RegExp(`^- ${k}: (.+)$`, 'm'))?.[1]?.trim();
  const facts = emptyFacts();
  for (const id of (get('Components') ?? '').split(/,\s*/)) if (COMPONENTS[id]) facts.components.add(id);
  facts.proxy = get('Reverse proxy') as ProxyId | undefined;
  facts.domain = get('Domain');
  facts.noDomain = !facts.domain;
  facts.tls = get('TLS') === 'yes';
  facts.provider = get('Provider') as ProviderId | undefined;
  facts.region = get('Region');
  facts.instanceType = get('Instance type');
  facts.memoryGb = Number(get('Memory GB')) || undefined;
  facts.cpus = Number(get('vCPUs')) || undefined;
  facts.storageGb = Number(get('Disk GB')) ? Number(get('Disk GB')) - SYSTEM_DISK_GB : undefined;
  facts.load = get('Load');
  facts.appLanguage = get('Application language');
  facts.sshTarget = readSshTarget(`server ${get('SSH target') ?? ''}`);
  facts.acceptsDefaults = true;
  const repo = get('Repository')?.match(/^(.+)@(.+)$/);
  return { facts, repository: repo ? { fullName: repo[1]!, branch: repo[2]! } : undefined };
}

// ---------------------------------------------------------------------------------------------------
// Architecture plan
// ---------------------------------------------------------------------------------------------------

export function renderArchitecturePlan(stack: Stack): string {
  const m = stack.machine;
  const servicesTable = [
    '| Service | Image | Purpose | Healthcheck |',
    '|---|---|---|---|',
    ...stack.services.map((s) => {
      const c = stack.components.find((x) => x.services.some((y) => y.name === s.name));
      return `| ${s.name} | ${s.image === 'build' ? 'built from the repository' : `\`${s.image}\``} | ${c?.purpose ?? 'certificate renewal'} | ${s.healthcheck ? 'yes' : `no — ${s.noHealthcheck ?? 'not supported'}`} |`;
    }),
  ];
  const files = stack.files.map((f) => `### ${f.path}\n\n\`\`\`${fenceLang(f.path)}\n${f.content.trimEnd()}\n\`\`\``);
  const access = stack.routes.length
    ? stack.routes.map((r) => `- ${stack.tls ? 'https' : 'http'}://${r.host === ':80' ? '<server-ip>' : r.host}/ → ${r.service}`)
    : stack.published.map((p) => `- ${p.port.startsWith('127.0.0.1') ? `SSH tunnel to ${p.port.split(':').slice(1, 2)[0]}` : `port ${p.port.split(':')[0]}`} → ${p.service}`);
  return [
    '# Cloud Architecture Plan',
    '',
    '## Overview',
    '',
    `${stack.components.map((c) => c.label).join(', ')} with Docker Compose on one ${m.providerLabel} machine (${m.instanceType}, ${m.vcpus} vCPU, ${m.memoryGb} GB RAM, ${m.diskGb} GB disk) in ${m.region}.`,
    '',
    '## Diagram',
    '',
    '```mermaid',
    mermaidDiagram(stack),
    '```',
    '',
    '## Services',
    '',
    ...servicesTable,
    '',
    '## Access',
    '',
    ...(access.length ? access : ['- SSH only']),
    '',
    '## Networking and security',
    '',
    (m.provider === 'vps' ? `- Inbound: SSH ${stack.facts.sshTarget?.port ?? 22} as the server has it; ` : '- Inbound: SSH 22 from ADMIN_CIDR only; ') + ([...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]))].map((p) => `${p}/tcp`).join(', ') || 'no other port') + '.',
    '- `backend` is an internal network: databases, caches and queues have no published port and no route out.',
    '- Password authentication over SSH is disabled; only keys log in.',
    '- Secrets reach the containers through `.env` (mode 600) written from User Secrets at deploy time.',
    ...stack.notes.map((n) => `- ${n}`),
    '',
    '## docker-compose.yml',
    '',
    '```yaml',
    stack.composeYaml.trimEnd(),
    '```',
    '',
    ...(files.length ? ['## Configuration files', '', ...files.flatMap((f) => [f, ''])] : []),
    '## Secrets',
    '',
    ...stack.secrets.map((s) => `- \`${s.name}\`${s.required ? '' : ' (optional)'}: ${s.description}`),
    '',
    stackDefinition(stack),
    '',
  ].join('\n');
}

function fenceLang(path: string): string {
  if (path.endsWith('.yml') || path.endsWith('.yaml')) return 'yaml';
  if (path.endsWith('.html')) return 'html';
  if (path.endsWith('.conf') && path.includes('nginx')) return 'nginx';
  return 'text';
}

// ---------------------------------------------------------------------------------------------------
// Implementation plan
// ---------------------------------------------------------------------------------------------------

export interface PlanStep {
  title: string;
  description: string;
  commands: string[];
}

export function renderImplementationPlan(stack: Stack): string {
  const steps = planSteps(stack);
  return [
    '# Implementation Plan',
    '',
    `Deploys ${stack.components.map((c) => c.label).join(', ')} to ${stack.machine.providerLabel} (${stack.machine.instanceType}, ${stack.machine.region}) in ${steps.length} steps. Commands run in the project workspace, where User Secrets are available as environment variables (${stack.secrets.map((s) => s.name).join(', ')}); they reach the server over SSH.`,
    '',
    ...steps.flatMap((s, i) => [`## Step ${i + 1}: ${s.title}`, '', s.description, '', '```bash', s.commands.join('\n'), '```', '']),
    stackDefinition(stack),
    '',
  ].join('\n');
}

/** The compose file and the files of a stack as YAML documents, for checks. */
export function composeOf(stack: Stack): unknown {
  return YAML.parse(stack.composeYaml);
}
