import YAML from 'yaml';
import { Value } from 'typebox/value';
import { StackModel } from '../../../shared/stackModel';
import { modelOfStack } from './stackModelBridge';
import { REQUIREMENTS_DOCUMENT, REQUIREMENTS_SECTION as S } from '../../../shared/constants/planning';
import { PRODUCTS, type SecretSpec } from './knowledge';
import { mermaidDiagram, SYSTEM_DISK_GB, type Stack } from './composer';
import { accessSummary } from './accessRules';
import { catalogueLabel, REPOSITORY_COMPONENT } from './repositoryCompose';
import { planSteps, stackBackup } from './deploySteps';
import { backupLine } from './backupSteps';
import { webPortsOf } from './provisionSteps';
import { emptyFacts, type Facts, type HostTask, type ProviderId, type ProxyId } from './facts';
import { readSshTarget, sshTargetLabel } from './sshTarget';
import { serverSiteSection } from './serverProxy';
import { isLabelOf } from './versions';

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

/** Line prefixes the planner writes and reads back when the next agent plans from the document. */
const CUSTOM_PREFIX = 'Your image';
const HOST_ONLY_PREFIX = 'Host only';
const ADDRESSES_PREFIX = 'Web addresses';
const PORTS_PREFIX = 'Ports asked for';
const SSH_PORT_PREFIX = 'SSH port';
const ALLOW_PREFIX = 'Allowed sources';
const EXCLUDED_PREFIX = 'Left out as asked';
const PLAIN_HTTP_PREFIX = 'Plain HTTP';
const PRIVATE_PREFIX = 'Kept private as asked';
const GPU_PREFIX = 'GPU';

/** What the disks are, as the provider gives them: never a bigger or encrypted disk than the plan creates. */
export function storageLine(stack: Stack): string {
  const m = stack.machine;
  const root = `${m.diskGb} GB SSD root disk${m.encrypted ? ', encrypted at rest' : ''}`;
  if (m.volumeGb) return `${root} (fixed by ${m.instanceType}); ${m.volumeGb} GB block volume for data, mounted at /mnt/data and holding Docker's data`;
  if (m.existing) return `the existing server's disk: it needs ${m.diskGb} GB free (this plan adds no disk to a server it did not create; add a volume at your provider if it has less)`;
  return `${root}; Docker volumes for data`;
}

/**
 * Facts of a requirements document the planner wrote: products from the Required Stack lines
 * (`Label: service (image) — purpose`), addresses, ports and allowlists from the Configuration lines.
 */
export function readRequirementLines(requiredStack: string, configuration: string, facts: Facts): void {
  for (const line of requiredStack.split('\n')) {
    const host = line.match(new RegExp(`^- ${HOST_ONLY_PREFIX}: ([^(]+?) on `));
    if (host) {
      facts.noContainers = true;
      for (const t of host[1]!.split(/,\s*/)) facts.hostTasks.add(t as HostTask);
      continue;
    }
    const m = line.match(/^- (.+?): ([a-z0-9-]+) \(([^)]+)\)/);
    if (!m) continue;
    const [, label, service, image] = m as unknown as [string, string, string, string];
    if (label === CUSTOM_PREFIX) {
      const port = line.match(/; port (\d+)/);
      const volumes = line.match(/; volumes ([^;]+)/)?.[1]!.split(/,\s*/) ?? [];
      const env = line.match(/; environment ([^;]+)/)?.[1]!.split(/,\s*/) ?? [];
      facts.custom.push({ name: service, image, ...(port ? { port: Number(port[1]) } : {}), volumes, environment: Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])) });
      continue;
    }
    // A service built from the repository may carry its folder's name (several Dockerfiles).
    const c = Object.values(PRODUCTS).find((x) => isLabelOf(x, label) && (x.services.some((y) => y.name === service) || image.startsWith('built from')));
    if (!c) continue;
    if (c.category === 'proxy') facts.proxy = c.id as ProxyId;
    else facts.components.add(c.id);
    const own = c.services.find((y) => y.name === service);
    if (own && image !== own.image && !image.startsWith('built from')) facts.images[c.id] = image;
  }
  for (const line of configuration.split('\n')) {
    const addresses = line.match(new RegExp(`^- ${ADDRESSES_PREFIX}: (.+)$`));
    if (addresses) {
      for (const pair of addresses[1]!.split(/,\s*/)) {
        const [host, target] = pair.split(' → ');
        const [service, endpoint] = (target ?? '').split('/');
        const c = Object.values(PRODUCTS).find((x) => x.services.some((y) => y.name === service));
        if (host && !facts.domains.some((d) => d.host === host)) facts.domains.push({ host, ...(c ? { component: c.id } : {}), ...(endpoint ? { endpoint } : {}) });
      }
    }
    const domainLine = line.match(/^- Domain: ([^\s(]+)/);
    if (domainLine && domainLine[1] !== TO_CONFIRM.split(' ')[0]) {
      facts.domain = domainLine[1];
      if (!facts.domains.some((d) => d.host === domainLine[1])) facts.domains.unshift({ host: domainLine[1]! });
      facts.noDomain = false;
    }
    if (/^- Certificates: Let's Encrypt/.test(line)) facts.tls = true;
    if (line.startsWith(`- ${PLAIN_HTTP_PREFIX}:`)) facts.plainHttpOk = true;
    if (line.startsWith(`- ${GPU_PREFIX}:`)) facts.gpu = true;
    const ports = line.match(new RegExp(`^- ${PORTS_PREFIX}: (.+)$`));
    if (ports) {
      for (const p of ports[1]!.split(/,\s*/)) {
        const pm = p.match(/^(\d+)(?: for ([\w-]+)( SSH)?)?$/);
        if (pm) facts.ports.push({ host: Number(pm[1]), ...(pm[2] ? { component: pm[2] } : {}), ...(pm[3] ? { ssh: true } : {}) });
      }
    }
    const ssh = line.match(new RegExp(`^- ${SSH_PORT_PREFIX}: (\\d+)$`));
    if (ssh) facts.sshPort = Number(ssh[1]);
    const excluded = line.match(new RegExp(`^- ${EXCLUDED_PREFIX}: (.+)$`));
    if (excluded) for (const id of excluded[1]!.split(/,\s*/)) facts.excluded.add(id);
    const kept = line.match(new RegExp(`^- ${PRIVATE_PREFIX}: (.+)$`));
    if (kept) for (const id of kept[1]!.split(/,\s*/)) facts.keepPrivate.add(id);
    const allow = line.match(new RegExp(`^- ${ALLOW_PREFIX}: (.+) \\((SSH only|every inbound port)\\)$`));
    if (allow) {
      facts.allowlist = allow[1]!.split(/,\s*/);
      facts.allowScope = allow[2] === 'SSH only' ? 'ssh' : 'all';
    }
  }
}

/** The requirements document for a stack; what is still open reads 'To be confirmed'. */
export function renderRequirements(stack: Stack, unknowns: Unknowns, now = new Date()): string {
  const m = stack.machine;
  const f = stack.facts;
  const labels = stack.components.map((c) => c.label);
  const where = unknowns.provider ? 'a server still to be chosen' : m.providerLabel;
  const summary = unknowns.workload
    ? `${TO_CONFIRM}: what the server should run.`
    : stack.hostOnly
      ? `${where}, prepared without containers: ${[...stack.facts.hostTasks].join(', ') || 'ufw'}.`
      : `A docker-compose stack on ${where} running ${labels.join(', ')}${stack.tls ? `, served over HTTPS at ${stack.domain}` : stack.domain ? ` at ${stack.domain}` : ''}.`;
  const custom = stack.facts.custom.filter((c) => stack.services.some((x) => x.name === c.name));
  const unknownLines = stack.facts.unknown.map((u) => `${u}: ${TO_CONFIRM} — not in the offline catalogue; give me its image (with port, volumes, environment) or choose an alternative`);
  const requiredStack = stack.hostOnly ? [
    `${HOST_ONLY_PREFIX}: ${[...stack.facts.hostTasks].join(', ') || 'ufw'} on Ubuntu 24.04 LTS (no Docker, no containers)`,
    ...unknownLines,
  ] : [
    'Docker Engine with the Compose v2 plugin on Ubuntu 24.04 LTS',
    ...custom.map((c) => `${CUSTOM_PREFIX}: ${c.name} (${c.image}) — run as given${c.port ? `; port ${c.port}` : ''}${c.volumes.length ? `; volumes ${c.volumes.join(', ')}` : ''}${Object.keys(c.environment).length ? `; environment ${Object.entries(c.environment).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}`),
    ...unknownLines,
    ...stack.components.flatMap((c) =>
      stack.services.filter((s) => c.services.some((x) => x.name === s.name) || (s.image === 'build' && c.services.some((x) => x.image === 'build'))).map((s) => `${c.label}: ${s.name} (${s.image === 'build' ? `built from ${stack.repository?.fullName ?? 'the application repository'}` : s.image}) — ${(c.id === REPOSITORY_COMPONENT && catalogueLabel(s.image)) || c.purpose}`),
    ),
    ...(f.appLanguage && stack.services.some((s) => s.image === 'build') ? [`Application language: ${f.appLanguage}`] : []),
  ];
  const config: string[] = [];
  if (unknowns.domain) config.push(`Domain: ${TO_CONFIRM}`);
  else if (stack.domain) config.push(`Domain: ${stack.domain} (DNS A records for ${stack.routes.map((r) => r.host).join(', ')} → the server's public IP)`);
  else config.push("Access: by the server's public IP address");
  if (stack.domain && stack.routes.length) config.push(`${ADDRESSES_PREFIX}: ${stack.routes.map((r) => `${r.host} → ${r.service}${r.endpoint && stack.routes.find((x) => x.service === r.service) !== r ? `/${r.endpoint}` : ''}`).join(', ')}`);
  const asked = stack.facts.ports.filter((p) => p.component || stack.published.some((x) => x.port.startsWith(`${p.host}:`)));
  if (asked.length) config.push(`${PORTS_PREFIX}: ${asked.map((p) => `${p.host}${p.component ? ` for ${p.component}${p.ssh ? ' SSH' : ''}` : ''}`).join(', ')}`);
  if (stack.sshPort !== 22) config.push(`${SSH_PORT_PREFIX}: ${stack.sshPort}`);
  if (stack.facts.excluded.size) config.push(`${EXCLUDED_PREFIX}: ${[...stack.facts.excluded].join(', ')}`);
  const kept = [...stack.facts.keepPrivate].filter((id) => stack.components.some((c) => c.id === id));
  if (kept.length) config.push(`${PRIVATE_PREFIX}: ${kept.join(', ')}`);
  if (stack.facts.gpu) {
    const given = stack.components.filter((c) => stack.services.some((s) => s.gpu && c.services.some((x) => x.name === s.name))).map((c) => c.label);
    config.push(`${GPU_PREFIX}: the server's NVIDIA GPUs${given.length ? `, given to ${given.join(', ')}` : ', which nothing in this stack can use'}`);
  }
  // Unknown software the person went on without: named, with nothing in its place.
  if (stack.facts.skipped.length) config.push(`Not in the offline catalogue, left out as you said: ${stack.facts.skipped.join(', ')}`);
  if (stack.allowlist.length) config.push(`${ALLOW_PREFIX}: ${stack.allowlist.join(', ')} (${stack.allowScope === 'ssh' ? 'SSH only' : 'every inbound port'})`);
  if (stack.tls) config.push("Certificates: Let's Encrypt, issued and renewed automatically");
  else if (f.plainHttpOk) config.push(`${PLAIN_HTTP_PREFIX}: served without TLS, as you said`);
  const volumes = Object.keys((stack.compose.volumes as object | undefined) ?? {});
  if (volumes.length) config.push(`Persistent volumes: ${volumes.join(', ')}`);
  const backups = stackBackup(stack);
  const backupSays = stack.hostOnly ? undefined : backupLine(backups.sources, backups.backup);
  if (backupSays) config.push(backupSays);
  if (!stack.hostOnly && !stack.repository?.layout?.compose) config.push('Networks: edge (reachable from outside through published ports) and backend (internal only, no route out)');
  const secretNames = stack.secrets.map((s) => s.name);
  config.push(`Credentials come from User Secrets as environment variables (${secretNames.join(', ')}); none are written into files in the repository`);
  for (const n of stack.notes) config.push(n);

  const integrations: string[] = [];
  const proxyServices = new Set(stack.components.filter((c) => c.proxy).flatMap((c) => c.services.map((x) => x.name)));
  for (const s of stack.services) for (const d of s.dependsOn ?? []) if (!stack.routes.some((r) => r.service === d && proxyServices.has(s.name))) integrations.push(`${s.name} → ${d}`);
  for (const r of stack.routes) integrations.push(`${stack.components.find((c) => c.category === 'proxy')?.label ?? 'proxy'} → ${r.service}:${r.port} for ${r.host}`);
  for (const reader of stack.services.filter((s) => s.generates?.kind === 'grafana-datasources')) {
    const label = stack.components.find((c) => c.services.some((x) => x.name === reader.name))?.label.split(' ')[0] ?? reader.name;
    const sources = stack.services.filter((s) => s.datasource).map((s) => s.datasource!.name);
    integrations.push(`${label} reads ${sources.join(' and ') || 'no datasource yet'} through provisioned datasources`);
  }
  if (!integrations.length) integrations.push(`Standalone: ${stack.services.map((s) => s.name).join(', ')} (no service-to-service links)`);

  const scale = [
    `Expected load: ${unknowns.load ? TO_CONFIRM : f.load ?? 'light (up to about 100 concurrent users)'}`,
    `Memory: about ${stack.memoryMb < 1024 ? `${stack.memoryMb} MB` : `${(stack.memoryMb / 1024).toFixed(1)} GB`} across containers`,
    `Disk: ${m.diskGb} GB`,
    ...(m.volumeGb ? [`Data volume: ${m.volumeGb} GB (block volume, the machine type's disk cannot grow)`] : []),
    'Single host; scale up by moving to a larger machine size',
  ];
  const ports = webPortsOf(stack);
  const cloud = [
    `Provider: ${unknowns.provider ? TO_CONFIRM : m.providerLabel}`,
    `Compute: ${unknowns.provider ? TO_CONFIRM : `${m.instanceType} (${m.vcpus} vCPU, ${m.memoryGb} GB RAM), Ubuntu 24.04 LTS`}`,
    `Storage: ${storageLine(stack)}`,
    `Networking: ${m.existing ? '' : 'public IPv4; '}${accessSummary(stack, ports)}`,
    `Region: ${unknowns.region || unknowns.provider ? TO_CONFIRM : m.region}`,
  ];
  const userDetails = [
    ...stack.secrets.map((s) => `${s.name}: ${s.description}`),
    ...(stack.domain ? [`DNS: A records for ${stack.routes.map((r) => r.host).join(', ')} at your DNS provider`] : []),
  ];
  return [
    `${S.summary}:\n${summary}`,
    `${S.requiredStack}:\n${list(unknowns.workload ? [`Docker Engine with the Compose v2 plugin; the workload is ${TO_CONFIRM}`] : requiredStack)}`,
    `${S.configuration}:\n${list(config)}`,
    `${S.integrations}:\n${list(unknowns.workload ? [TO_CONFIRM] : integrations)}`,
    `${S.scale}:\n${list(scale)}`,
    `${S.cloud}:\n${list(cloud)}`,
    `${S.userDetails}:\n${list(userDetails)}`,
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
    ['Data volume GB', stack.machine.volumeGb ? String(stack.machine.volumeGb) : undefined],
    ['Load', f.load],
    ['Application language', f.appLanguage],
    ['Repository', stack.repository ? `${stack.repository.fullName}${stack.repository.branch ? `@${stack.repository.branch}` : ''}` : undefined],
    ['Images', Object.entries(f.images).map(([id, image]) => `${id}=${image}`).join(', ')],
    ['Your images', f.custom.length ? JSON.stringify(f.custom) : undefined],
    ['Domains', f.domains.map((d) => (d.component ? `${d.host}=${d.component}${d.endpoint ? `/${d.endpoint}` : ''}` : d.host)).join(', ')],
    ['Ports', f.ports.map((p) => `${p.host}${p.component ? `=${p.component}${p.ssh ? ':ssh' : ''}` : ''}`).join(', ')],
    ['SSH port', stack.sshPort !== 22 ? String(stack.sshPort) : undefined],
    ['Allowed sources', stack.allowlist.length ? `${stack.allowlist.join(', ')} (${stack.allowScope})` : undefined],
    ['Left out', [...f.excluded].join(', ')],
    ['Plain HTTP accepted', f.plainHttpOk ? 'yes' : undefined],
    ['GPU', f.gpu ? 'yes' : undefined],
    ['Kept private', [...f.keepPrivate].join(', ')],
    ['Host only', stack.hostOnly ? [...f.hostTasks].join(', ') || 'ufw' : undefined],
    ['SSH target', f.sshTarget ? sshTargetLabel(f.sshTarget) : undefined],
    ['Server proxy', f.serverProxy ? `${f.serverProxy.kind}${f.serverProxy.manage ? ' (managed)' : ''}` : undefined],
  ];
  return [
    DEFINITION_HEADING,
    '',
    ...rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `- ${k}: ${v}`),
    '',
    MODEL_LEAD,
    '',
    '```json',
    JSON.stringify(modelOfStack(stack)),
    '```',
  ].join('\n');
}

const MODEL_LEAD = 'The stack model this plan renders (components, links, exposures, target):';

/** The stack model a plan was rendered from (undefined when the text has none, or it does not check). */
export function readStackModel(text: string): StackModel | undefined {
  const start = text.indexOf(MODEL_LEAD);
  if (start < 0) return undefined;
  const json = text.slice(start).match(/```json\n(.+)\n```/)?.[1];
  if (!json) return undefined;
  try {
    const model: unknown = JSON.parse(json);
    return Value.Check(StackModel, model) ? model : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a plan's stack definition back into facts (undefined when the text has none). */
export function readStackDefinition(text: string): { facts: Facts; repository?: { fullName: string; branch: string; local?: boolean } } | undefined {
  const start = text.indexOf(DEFINITION_HEADING);
  if (start < 0) return undefined;
  const body = text.slice(start + DEFINITION_HEADING.length).split(/\n(?=#)/)[0]!;
  const get = (k: string): string | undefined => body.match(new RegExp(`^- ${k}: (.+)$`, 'm'))?.[1]?.trim();
  const facts = emptyFacts();
  for (const id of (get('Components') ?? '').split(/,\s*/)) if (PRODUCTS[id]) facts.components.add(id);
  facts.proxy = get('Reverse proxy') as ProxyId | undefined;
  facts.domain = get('Domain');
  facts.noDomain = !facts.domain;
  facts.tls = get('TLS') === 'yes';
  facts.provider = get('Provider') as ProviderId | undefined;
  facts.region = get('Region');
  facts.instanceType = get('Instance type');
  facts.memoryGb = Number(get('Memory GB')) || undefined;
  facts.cpus = Number(get('vCPUs')) || undefined;
  facts.storageGb = Number(get('Data volume GB')) || (Number(get('Disk GB')) ? Number(get('Disk GB')) - SYSTEM_DISK_GB : undefined);
  facts.load = get('Load');
  facts.appLanguage = get('Application language');
  facts.sshTarget = readSshTarget(`server ${get('SSH target') ?? ''}`);
  facts.acceptsDefaults = true;
  for (const pair of (get('Images') ?? '').split(/,\s*/).filter(Boolean)) facts.images[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  const custom = get('Your images');
  if (custom) facts.custom = JSON.parse(custom) as Facts['custom'];
  for (const d of (get('Domains') ?? '').split(/,\s*/).filter(Boolean)) {
    const [host, target] = d.split('=');
    const [component, endpoint] = (target ?? '').split('/');
    facts.domains.push({ host: host!, ...(component ? { component } : {}), ...(endpoint ? { endpoint } : {}) });
  }
  for (const p of (get('Ports') ?? '').split(/,\s*/).filter(Boolean)) {
    const m = p.match(/^(\d+)(?:=([\w-]+)(:ssh)?)?$/);
    if (m) facts.ports.push({ host: Number(m[1]), ...(m[2] ? { component: m[2] } : {}), ...(m[3] ? { ssh: true } : {}) });
  }
  facts.sshPort = Number(get('SSH port')) || undefined;
  const allow = get('Allowed sources')?.match(/^(.+) \((ssh|all)\)$/);
  if (allow) {
    facts.allowlist = allow[1]!.split(/,\s*/);
    facts.allowScope = allow[2] as 'ssh' | 'all';
  }
  for (const id of (get('Left out') ?? '').split(/,\s*/).filter(Boolean)) facts.excluded.add(id);
  facts.plainHttpOk = get('Plain HTTP accepted') === 'yes';
  facts.gpu = get('GPU') === 'yes';
  for (const id of (get('Kept private') ?? '').split(/,\s*/).filter(Boolean)) facts.keepPrivate.add(id);
  const serverProxy = get('Server proxy')?.match(/^([a-z]+)( \(managed\))?$/);
  if (serverProxy) facts.serverProxy = { kind: serverProxy[1]!, manage: Boolean(serverProxy[2]) };
  const hostOnly = get('Host only');
  if (hostOnly) {
    facts.noContainers = true;
    for (const t of hostOnly.split(/,\s*/)) facts.hostTasks.add(t as HostTask);
  }
  // Backups are the model's alone (destination, schedule, what is skipped): no line of the definition spells them.
  const model = readStackModel(text.slice(start));
  if (model) facts.backup = { ...model.backup, skip: [...model.backup.skip] };
  const repo = get('Repository')?.match(/^([^@\s]+)(?:@(.+))?$/);
  return { facts, repository: repo ? { fullName: repo[1]!, branch: repo[2] ?? '', ...(repo[1]!.startsWith('local/') ? { local: true } : {}) } : undefined };
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
      // A service built from the repository may carry its folder's name (one per Dockerfile).
      const c = stack.components.find((x) => x.services.some((y) => y.name === s.name)) ?? (s.image === 'build' ? stack.components.find((x) => x.services.some((y) => y.image === 'build')) : undefined);
      const purpose = (c?.id === REPOSITORY_COMPONENT && catalogueLabel(s.image)) || c?.purpose || 'certificate renewal';
      return `| ${s.name} | ${s.image === 'build' ? 'built from the repository' : `\`${s.image}\``} | ${purpose} | ${s.healthcheck ? 'yes' : `no — ${s.noHealthcheck ?? 'not supported'}`} |`;
    }),
  ];
  const files = stack.files.map((f) => `### ${f.path}\n\n\`\`\`${fenceLang(f.path)}\n${f.content.trimEnd()}\n\`\`\``);
  const loopbackPort = (service: string): string | undefined => stack.published.find((p) => p.service === service && p.port.startsWith('127.0.0.1:'))?.port.split(':')[1];
  const access = stack.frontedBy
    ? stack.routes.map((r) => `- ${r.host} → ${r.service}: served by the proxy already on the server (${stack.frontedBy}) once it sends ${r.host} to http://${stack.serverSite?.routes.find((x) => x.host === r.host)?.upstream ?? `127.0.0.1:${loopbackPort(r.service) ?? r.port}`}; its certificate, not this plan's`)
    : stack.routes.length
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
    ...serverSiteSection(stack),
    '## Networking and security',
    '',
    `- Inbound: ${accessSummary(stack, webPortsOf(stack))}.`,
    ...(stack.services.some((x) => x.networks.includes('backend') && !x.publish?.length) ? ['- `backend` is an internal network: what is on it only (databases, caches, queues) has no published port and no route out.'] : []),
    // Said only where a step does it: the firewall step of a server the plan creates (an existing server is left as it is).
    ...(m.existing || stack.hostOnly ? [] : ['- Password authentication over SSH is disabled; only keys log in.']),
    '- Secrets reach the containers through `.env` (mode 600) written from User Secrets at deploy time.',
    ...[stack.hostOnly ? undefined : backupLine(stackBackup(stack).sources, stackBackup(stack).backup)].flatMap((l) => (l ? [`- ${l}.`] : [])),
    ...stack.notes.map((n) => `- ${n}`),
    '',
    ...(stack.hostOnly ? [] : ['## docker-compose.yml', '', '```yaml', stack.composeYaml.trimEnd(), '```', '']),
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

export type { PlanStep } from './plannerTypes';

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
