import YAML from 'yaml';
import { REQUIREMENTS_DOCUMENT } from '../../../shared/constants/planning';
import { COMPONENTS, type SecretSpec } from './components';
import { mermaidDiagram, SYSTEM_DISK_GB, type Stack } from './composer';
import { emptyFacts, type Facts, type HostTask, type ProviderId, type ProxyId } from './facts';

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

/** What the disks are, as the provider gives them: never a bigger or encrypted disk than the plan creates. */
export function storageLine(stack: Stack): string {
  const m = stack.machine;
  const root = `${m.diskGb} GB SSD root disk${m.encrypted ? ', encrypted at rest' : ''}`;
  if (m.volumeGb) return `${root} (fixed by ${m.instanceType}); ${m.volumeGb} GB block volume for data, mounted at /mnt/data and holding Docker's data`;
  if (m.provider === 'vps') return `the existing server's disk: it needs ${m.diskGb} GB free (this plan adds no disk to a server it did not create; add a volume at your provider if it has less)`;
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
    const c = Object.values(COMPONENTS).find((x) => x.services.some((y) => y.name === service) && x.label === label);
    if (!c) continue;
    if (c.category === 'proxy') facts.proxy = c.id as ProxyId;
    else facts.components.add(c.id);
    const own = c.services.find((y) => y.name === service)!;
    if (image !== own.image && !image.startsWith('built from')) facts.images[c.id] = image;
  }
  for (const line of configuration.split('\n')) {
    const addresses = line.match(new RegExp(`^- ${ADDRESSES_PREFIX}: (.+)$`));
    if (addresses) {
      for (const pair of addresses[1]!.split(/,\s*/)) {
        const [host, service] = pair.split(' → ');
        const c = Object.values(COMPONENTS).find((x) => x.services.some((y) => y.name === service));
        if (host && !facts.domains.some((d) => d.host === host)) facts.domains.push({ host, ...(c ? { component: c.id } : {}) });
      }
    }
    const domainLine = line.match(/^- Domain: ([^\s(]+)/);
    if (domainLine && domainLine[1] !== TO_CONFIRM.split(' ')[0]) {
      facts.domain = domainLine[1];
      if (!facts.domains.some((d) => d.host === domainLine[1])) facts.domains.unshift({ host: domainLine[1]! });
      facts.noDomain = false;
    }
    if (/^- Certificates: Let's Encrypt/.test(line)) facts.tls = true;
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
    : `A docker-compose stack on ${where} running ${labels.join(', ')}${stack.tls ? `, served over HTTPS at ${stack.domain}` : stack.domain ? ` at ${stack.domain}` : ''}.`;
  const custom = stack.facts.custom.filter((c) => stack.services.some((x) => x.name === c.name));
  const requiredStack = stack.hostOnly ? [
    `${HOST_ONLY_PREFIX}: ${[...stack.facts.hostTasks].join(', ') || 'ufw'} on Ubuntu 24.04 LTS (no Docker, no containers)`,
  ] : [
    'Docker Engine with the Compose v2 plugin on Ubuntu 24.04 LTS',
    ...custom.map((c) => `${CUSTOM_PREFIX}: ${c.name} (${c.image}) — run as given${c.port ? `; port ${c.port}` : ''}${c.volumes.length ? `; volumes ${c.volumes.join(', ')}` : ''}${Object.keys(c.environment).length ? `; environment ${Object.entries(c.environment).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}`),
    ...stack.facts.unknown.map((u) => `${u}: ${TO_CONFIRM} — not in the offline catalogue; give me its image (with port, volumes, environment) or choose an alternative`),
    ...stack.components.flatMap((c) =>
      stack.services.filter((s) => c.services.some((x) => x.name === s.name)).map((s) => `${c.label}: ${s.name} (${s.image === 'build' ? `built from ${stack.repository?.fullName ?? 'the application repository'}` : s.image}) — ${c.purpose}`),
    ),
    ...(f.appLanguage && stack.services.some((s) => s.name === 'app') ? [`Application language: ${f.appLanguage}`] : []),
  ];
  const config: string[] = [];
  if (unknowns.domain) config.push(`Domain: ${TO_CONFIRM}`);
  else if (stack.domain) config.push(`Domain: ${stack.domain} (DNS A records for ${stack.routes.map((r) => r.host).join(', ')} → the server's public IP)`);
  else config.push("Access: by the server's public IP address");
  if (stack.domain && stack.routes.length) config.push(`${ADDRESSES_PREFIX}: ${stack.routes.map((r) => `${r.host} → ${r.service}`).join(', ')}`);
  const asked = stack.facts.ports.filter((p) => p.component || stack.published.some((x) => x.port.startsWith(`${p.host}:`)));
  if (asked.length) config.push(`${PORTS_PREFIX}: ${asked.map((p) => `${p.host}${p.component ? ` for ${p.component}${p.ssh ? ' SSH' : ''}` : ''}`).join(', ')}`);
  if (stack.sshPort !== 22) config.push(`${SSH_PORT_PREFIX}: ${stack.sshPort}`);
  if (stack.facts.excluded.size) config.push(`${EXCLUDED_PREFIX}: ${[...stack.facts.excluded].join(', ')}`);
  if (stack.allowlist.length) config.push(`${ALLOW_PREFIX}: ${stack.allowlist.join(', ')} (${stack.allowScope === 'ssh' ? 'SSH only' : 'every inbound port'})`);
  if (stack.tls) config.push("Certificates: Let's Encrypt, issued and renewed automatically");
  const volumes = Object.keys((stack.compose.volumes as object | undefined) ?? {});
  if (volumes.length) config.push(`Persistent volumes: ${volumes.join(', ')}`);
  if (!stack.hostOnly) config.push('Networks: edge (reachable from outside through published ports) and backend (internal only, no route out)');
  const secretNames = stack.secrets.map((s) => s.name);
  config.push(`Credentials come from User Secrets as environment variables (${secretNames.join(', ')}); none are written into files in the repository`);
  for (const n of stack.notes) config.push(n);

  const integrations: string[] = [];
  for (const s of stack.services) for (const d of s.dependsOn ?? []) if (!stack.routes.some((r) => r.service === d && ['caddy', 'proxy', 'traefik'].includes(s.name))) integrations.push(`${s.name} → ${d}`);
  for (const r of stack.routes) integrations.push(`${stack.components.find((c) => c.category === 'proxy')?.label ?? 'proxy'} → ${r.service}:${r.port} for ${r.host}`);
  if (stack.services.some((s) => s.name === 'grafana')) {
    const sources = ['prometheus', 'loki'].filter((n) => stack.services.some((s) => s.name === n)).map((n) => (n === 'loki' ? 'Loki' : 'Prometheus'));
    integrations.push(`Grafana reads ${sources.join(' and ') || 'no datasource yet'} through provisioned datasources`);
  }
  if (!integrations.length) integrations.push(`Standalone: ${stack.services.map((s) => s.name).join(', ')} (no service-to-service links)`);

  const scale = [
    `Expected load: ${unknowns.load ? TO_CONFIRM : f.load ?? 'light (up to about 100 concurrent users)'}`,
    `Memory: about ${stack.memoryMb < 1024 ? `${stack.memoryMb} MB` : `${(stack.memoryMb / 1024).toFixed(1)} GB`} across containers`,
    `Disk: ${m.diskGb} GB`,
    ...(m.volumeGb ? [`Data volume: ${m.volumeGb} GB (block volume, the machine type's disk cannot grow)`] : []),
    'Single host; scale up by moving to a larger machine size',
  ];
  const ports = [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]))];
  const cloud = [
    `Provider: ${unknowns.provider ? TO_CONFIRM : m.providerLabel}`,
    `Compute: ${unknowns.provider ? TO_CONFIRM : `${m.instanceType} (${m.vcpus} vCPU, ${m.memoryGb} GB RAM), Ubuntu 24.04 LTS`}`,
    `Storage: ${storageLine(stack)}`,
    `Networking: public IPv4; inbound ${[`${stack.sshPort} (SSH, from ${stack.allowScope === 'ssh' && stack.allowlist.length ? stack.allowlist.join(', ') : 'ADMIN_CIDR only'})`, ...ports.map((p) => `${p}/tcp${stack.allowScope === 'all' && stack.allowlist.length ? ` from ${stack.allowlist.join(', ')}` : ''}`)].join(', ')}; everything else closed`,
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
    ['Data volume GB', stack.machine.volumeGb ? String(stack.machine.volumeGb) : undefined],
    ['Load', f.load],
    ['Application language', f.appLanguage],
    ['Repository', stack.repository ? `${stack.repository.fullName}@${stack.repository.branch}` : undefined],
    ['Images', Object.entries(f.images).map(([id, image]) => `${id}=${image}`).join(', ')],
    ['Your images', f.custom.length ? JSON.stringify(f.custom) : undefined],
    ['Domains', f.domains.map((d) => (d.component ? `${d.host}=${d.component}` : d.host)).join(', ')],
    ['Ports', f.ports.map((p) => `${p.host}${p.component ? `=${p.component}${p.ssh ? ':ssh' : ''}` : ''}`).join(', ')],
    ['SSH port', stack.sshPort !== 22 ? String(stack.sshPort) : undefined],
    ['Allowed sources', stack.allowlist.length ? `${stack.allowlist.join(', ')} (${stack.allowScope})` : undefined],
    ['Left out', [...f.excluded].join(', ')],
    ['Host only', stack.hostOnly ? [...f.hostTasks].join(', ') || 'ufw' : undefined],
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
  facts.storageGb = Number(get('Data volume GB')) || (Number(get('Disk GB')) ? Number(get('Disk GB')) - SYSTEM_DISK_GB : undefined);
  facts.load = get('Load');
  facts.appLanguage = get('Application language');
  facts.acceptsDefaults = true;
  for (const pair of (get('Images') ?? '').split(/,\s*/).filter(Boolean)) facts.images[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  const custom = get('Your images');
  if (custom) facts.custom = JSON.parse(custom) as Facts['custom'];
  for (const d of (get('Domains') ?? '').split(/,\s*/).filter(Boolean)) {
    const [host, component] = d.split('=');
    facts.domains.push({ host: host!, ...(component ? { component } : {}) });
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
  const hostOnly = get('Host only');
  if (hostOnly) {
    facts.noContainers = true;
    for (const t of hostOnly.split(/,\s*/)) facts.hostTasks.add(t as HostTask);
  }
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
    '- Inbound: SSH 22 from ADMIN_CIDR only; ' + ([...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]))].map((p) => `${p}/tcp`).join(', ') || 'no other port') + '.',
    ...(stack.services.some((x) => x.networks.includes('backend') && !x.publish?.length) ? ['- `backend` is an internal network: what is on it only (databases, caches, queues) has no published port and no route out.'] : []),
    '- Password authentication over SSH is disabled; only keys log in.',
    '- Secrets reach the containers through `.env` (mode 600) written from User Secrets at deploy time.',
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

export interface PlanStep {
  title: string;
  description: string;
  commands: string[];
}

const SSH = 'ssh -i ~/.ssh/deploy_key -o StrictHostKeyChecking=accept-new -o ConnectTimeout=20 "$(cat .server_target)"';
const remote = (script: string, env: string[] = []): string =>
  `${SSH} ${env.length ? `"${env.map((e) => `${e}='$${e}'`).join(' ')} bash -se"` : "'bash -se'"} <<'REMOTE'\n${script}\nREMOTE`;

const heredoc = (path: string, content: string): string => {
  let tag = 'EOF';
  while (content.includes(tag)) tag += '_';
  return `cat > stack/${path} <<'${tag}'\n${content.trimEnd()}\n${tag}`;
};

/** Who may reach the published ports: the person's allowlist when it covers every port, else anyone. */
const webSources = (stack: Stack): string[] => (stack.allowScope === 'all' && stack.allowlist.length ? stack.allowlist : ['0.0.0.0/0']);
/** Who may reach SSH: ADMIN_CIDR, plus the allowlist the person gave. */
const sshSources = (stack: Stack): string[] => ['$ADMIN_CIDR', ...stack.allowlist];

/** The data volume of a machine whose disk cannot grow, created and attached at the provider. */
function volumeCommands(stack: Stack, name: string): string[] {
  const m = stack.machine;
  if (!m.volumeGb) return [];
  if (m.provider === 'hetzner') return [`hcloud volume create --name ${name}-data --size ${m.volumeGb} --server ${name} --format ext4`];
  if (m.provider === 'digitalocean') {
    return [
      `doctl compute volume create ${name}-data --region ${m.region} --size ${m.volumeGb}GiB --fs-type ext4`,
      `doctl compute volume-action attach "$(doctl compute volume list --format ID,Name --no-header | awk '$2=="${name}-data"{print $1}')" "$(doctl compute droplet list ${name} --format ID --no-header)" --wait`,
    ];
  }
  return [];
}

function provisionSteps(stack: Stack): PlanStep[] {
  const m = stack.machine;
  const name = `da-${stack.name}`;
  const keygen = 'mkdir -p ~/.ssh && chmod 700 ~/.ssh && (test -f ~/.ssh/deploy_key || ssh-keygen -t ed25519 -N "" -C deploy -f ~/.ssh/deploy_key)';
  const waitSsh = `for i in $(seq 1 30); do ${SSH} true && exit 0; sleep 10; done; echo "the server does not answer on SSH" >&2; exit 1`;
  const webPorts = [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]!))];
  switch (m.provider) {
    case 'vps':
      return [
        {
          title: 'Install the deploy key and check SSH access',
          description: 'Write the SSH key from User Secrets to the workspace and check that it logs in to the server.',
          commands: [
            'mkdir -p ~/.ssh && chmod 700 ~/.ssh && umask 077 && printf \'%s\\n\' "$SSH_PRIVATE_KEY" > ~/.ssh/deploy_key',
            'printf \'%s@%s\' "$SERVER_USER" "$SERVER_HOST" > .server_target',
            `${SSH} 'uname -a && lsb_release -ds'`,
          ],
        },
      ];
    case 'aws':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new instance.', commands: [keygen] },
        {
          title: 'Create the security group',
          description: `Security group ${name}-sg in ${m.region}: SSH from ADMIN_CIDR only, ${webPorts.join(', ') || 'no other port'} from anywhere.`,
          commands: [
            `aws ec2 create-security-group --region ${m.region} --group-name ${name}-sg --description "${name}: SSH from admin, web from anywhere"`,
            ...sshSources(stack).map((src) => `aws ec2 authorize-security-group-ingress --region ${m.region} --group-name ${name}-sg --protocol tcp --port ${stack.sshPort} --cidr "${src}"`),
            ...webPorts.flatMap((p) => webSources(stack).map((src) => `aws ec2 authorize-security-group-ingress --region ${m.region} --group-name ${name}-sg --protocol tcp --port ${p} --cidr ${src}`)),
          ],
        },
        {
          title: 'Launch the EC2 instance',
          description: `Ubuntu 24.04 LTS on ${m.instanceType} with an encrypted ${m.diskGb} GB gp3 volume, IMDSv2 required; an Elastic IP keeps its address stable.`,
          commands: [
            `aws ec2 import-key-pair --region ${m.region} --key-name ${name}-deploy --public-key-material fileb://$HOME/.ssh/deploy_key.pub`,
            `aws ec2 run-instances --region ${m.region} --image-id resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id --instance-type ${m.instanceType} --key-name ${name}-deploy --security-groups ${name}-sg --block-device-mappings 'DeviceName=/dev/sda1,Ebs={VolumeSize=${m.diskGb},VolumeType=gp3,Encrypted=true}' --metadata-options HttpTokens=required --tag-specifications 'ResourceType=instance,Tags=[{Key=Name,Value=${name}}]'`,
            `aws ec2 wait instance-running --region ${m.region} --filters Name=tag:Name,Values=${name}`,
            `INSTANCE_ID=$(aws ec2 describe-instances --region ${m.region} --filters Name=tag:Name,Values=${name} Name=instance-state-name,Values=running --query 'Reservations[0].Instances[0].InstanceId' --output text) && ALLOC_ID=$(aws ec2 allocate-address --region ${m.region} --domain vpc --query AllocationId --output text) && aws ec2 associate-address --region ${m.region} --instance-id "$INSTANCE_ID" --allocation-id "$ALLOC_ID" && printf 'ubuntu@%s' "$(aws ec2 describe-addresses --region ${m.region} --allocation-ids "$ALLOC_ID" --query 'Addresses[0].PublicIp' --output text)" > .server_target`,
            waitSsh,
            `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'cat >> ~/.ssh/authorized_keys'`,
          ],
        },
      ];
    case 'digitalocean':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new droplet.', commands: [keygen] },
        {
          title: 'Create the droplet and its firewall',
          description: `Ubuntu 24.04 droplet ${m.instanceType} in ${m.region}; the cloud firewall allows SSH from ADMIN_CIDR and ${webPorts.join(', ') || 'nothing else'}.`,
          commands: [
            'export DIGITALOCEAN_ACCESS_TOKEN="$DIGITALOCEAN_TOKEN"',
            `doctl compute ssh-key import ${name}-deploy --public-key-file ~/.ssh/deploy_key.pub`,
            `doctl compute droplet create ${name} --image ubuntu-24-04-x64 --size ${m.instanceType} --region ${m.region} --ssh-keys "$(doctl compute ssh-key list --format ID,Name --no-header | awk '$2=="${name}-deploy"{print $1}')" --wait`,
            `doctl compute firewall create --name ${name}-fw --droplet-ids "$(doctl compute droplet list ${name} --format ID --no-header)" --inbound-rules "${sshSources(stack).map((src) => `protocol:tcp,ports:${stack.sshPort},address:${src}`).join(' ')}${webPorts.flatMap((p) => webSources(stack).map((src) => ` protocol:tcp,ports:${p},address:${src}`)).join('')}" --outbound-rules "protocol:tcp,ports:all,address:0.0.0.0/0 protocol:udp,ports:all,address:0.0.0.0/0 protocol:icmp,address:0.0.0.0/0"`,
            ...volumeCommands(stack, name),
            `printf 'root@%s' "$(doctl compute droplet list ${name} --format PublicIPv4 --no-header)" > .server_target`,
            waitSsh,
            `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'cat >> ~/.ssh/authorized_keys'`,
          ],
        },
      ];
    case 'hetzner':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new server.', commands: [keygen] },
        {
          title: 'Create the server and its firewall',
          description: `Ubuntu 24.04 ${m.instanceType} in ${m.region}; the firewall allows SSH from ADMIN_CIDR and ${webPorts.join(', ') || 'nothing else'}.`,
          commands: [
            `hcloud ssh-key create --name ${name}-deploy --public-key-from-file ~/.ssh/deploy_key.pub`,
            `hcloud firewall create --name ${name}-fw`,
            `hcloud firewall add-rule ${name}-fw --direction in --protocol tcp --port ${stack.sshPort} ${sshSources(stack).map((src) => `--source-ips "${src}"`).join(' ')}`,
            ...webPorts.map((p) => `hcloud firewall add-rule ${name}-fw --direction in --protocol tcp --port ${p} ${webSources(stack).map((src) => `--source-ips ${src}`).join(' ')}${webSources(stack).includes('0.0.0.0/0') ? ' --source-ips ::/0' : ''}`),
            `hcloud server create --name ${name} --type ${m.instanceType} --image ubuntu-24.04 --location ${m.region} --ssh-key ${name}-deploy --firewall ${name}-fw`,
            ...volumeCommands(stack, name),
            `printf 'root@%s' "$(hcloud server ip ${name})" > .server_target`,
            waitSsh,
            `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'cat >> ~/.ssh/authorized_keys'`,
          ],
        },
      ];
    case 'gcp': {
      const zone = `${m.region}-a`;
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new VM.', commands: [keygen] },
        {
          title: 'Create the VM and its firewall rules',
          description: `Ubuntu 24.04 ${m.instanceType} in ${zone} with a ${m.diskGb} GB disk; firewall rules allow SSH from ADMIN_CIDR and ${webPorts.join(', ') || 'nothing else'}.`,
          commands: [
            'umask 077 && printf \'%s\' "$GCP_SERVICE_ACCOUNT_KEY" > gcp-key.json && gcloud auth activate-service-account --key-file gcp-key.json && rm -f gcp-key.json',
            `gcloud compute firewall-rules create ${name}-ssh --project "$GCP_PROJECT_ID" --allow tcp:${stack.sshPort} --source-ranges "${sshSources(stack).join(',')}" --target-tags ${name}`,
            ...(webPorts.length ? [`gcloud compute firewall-rules create ${name}-web --project "$GCP_PROJECT_ID" --allow ${webPorts.map((p) => `tcp:${p}`).join(',')} --source-ranges ${webSources(stack).join(',')} --target-tags ${name}`] : []),
            `gcloud compute instances create ${name} --project "$GCP_PROJECT_ID" --zone ${zone} --machine-type ${m.instanceType} --image-family ubuntu-2404-lts-amd64 --image-project ubuntu-os-cloud --boot-disk-size ${m.diskGb}GB --tags ${name} --metadata "ssh-keys=ubuntu:$(cat ~/.ssh/deploy_key.pub)"`,
            `printf 'ubuntu@%s' "$(gcloud compute instances describe ${name} --project "$GCP_PROJECT_ID" --zone ${zone} --format='get(networkInterfaces[0].accessConfigs[0].natIP)')" > .server_target`,
            waitSsh,
            `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'cat >> ~/.ssh/authorized_keys'`,
          ],
        },
      ];
    }
    case 'azure':
      return [
        { title: 'Create a deploy key', description: 'An ed25519 key the workspace uses to reach the new VM.', commands: [keygen] },
        {
          title: 'Create the VM and open its ports',
          description: `Ubuntu 24.04 ${m.instanceType} in ${m.region}; SSH restricted to ADMIN_CIDR, ${webPorts.join(', ') || 'nothing else'} open.`,
          commands: [
            'az login --service-principal -u "$AZURE_CLIENT_ID" -p "$AZURE_CLIENT_SECRET" --tenant "$AZURE_TENANT_ID" --output none && az account set --subscription "$AZURE_SUBSCRIPTION_ID"',
            `az group create --name ${name}-rg --location ${m.region} --output none`,
            `az vm create --resource-group ${name}-rg --name ${name} --image Ubuntu2404 --size ${m.instanceType} --admin-username ubuntu --ssh-key-values ~/.ssh/deploy_key.pub --os-disk-size-gb ${m.diskGb} --public-ip-sku Standard --nsg ${name}-nsg --nsg-rule SSH --output none`,
            `az network nsg rule update --resource-group ${name}-rg --nsg-name ${name}-nsg --name default-allow-ssh --source-address-prefixes "$ADMIN_CIDR" --output none`,
            ...(webPorts.length ? [`az vm open-port --resource-group ${name}-rg --name ${name} --port ${webPorts.join(',')} --priority 1010 --output none`] : []),
            `printf 'ubuntu@%s' "$(az vm show -d --resource-group ${name}-rg --name ${name} --query publicIps --output tsv)" > .server_target`,
            waitSsh,
            `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'cat >> ~/.ssh/authorized_keys'`,
          ],
        },
      ];
  }
}

/** Mounts the provider's data volume at /mnt/data and puts Docker's data there, before Docker is installed. */
function dataVolumeMount(): string[] {
  return [
    'DEV=$(ls /dev/disk/by-id/scsi-0HC_Volume_* /dev/disk/by-id/scsi-0DO_Volume_* 2>/dev/null | head -n 1); test -n "$DEV" || { echo "the data volume is not attached" >&2; exit 1; }',
    'sudo mkdir -p /mnt/data && (mountpoint -q /mnt/data || sudo mount -o discard,defaults "$DEV" /mnt/data)',
    'grep -q " /mnt/data " /etc/fstab || echo "$DEV /mnt/data ext4 discard,nofail,defaults 0 0" | sudo tee -a /etc/fstab',
    'sudo mkdir -p /etc/docker /mnt/data/docker && echo \'{"data-root": "/mnt/data/docker"}\' | sudo tee /etc/docker/daemon.json',
  ];
}

/**
 * A host-only plan: the firewall, fail2ban and automatic security updates, no Docker. Ports something
 * already listens on stay open, so a live server keeps serving what it serves.
 */
function hostOnlySteps(stack: Stack): PlanStep[] {
  const tasks = stack.facts.hostTasks.size ? stack.facts.hostTasks : new Set(['ufw']);
  const packages = [...tasks].join(' ');
  const script = ['sudo apt-get update -q', `sudo DEBIAN_FRONTEND=noninteractive apt-get install -yq ${packages}`];
  if (tasks.has('ufw')) {
    script.push(
      `for p in $(sudo ss -Htln | awk '$4 !~ /^(127\\.|\\[::1\\])/ {n=split($4,a,":"); print a[n]}' | sort -un); do [ "$p" = ${stack.sshPort} ] || sudo ufw allow "$p/tcp"; done`,
      ...sshSources(stack).map((src) => `sudo ufw allow from "${src}" to any port ${stack.sshPort} proto tcp`),
      'sudo ufw default deny incoming',
      'sudo ufw default allow outgoing',
      'sudo ufw --force enable',
    );
  }
  if (tasks.has('fail2ban')) script.push("printf '[sshd]\\nenabled = true\\nport = %s\\n' " + String(stack.sshPort) + ' | sudo tee /etc/fail2ban/jail.d/sshd.local', 'sudo systemctl enable --now fail2ban', 'sudo systemctl restart fail2ban');
  if (tasks.has('unattended-upgrades')) {
    script.push("printf 'APT::Periodic::Update-Package-Lists \"1\";\\nAPT::Periodic::Unattended-Upgrade \"1\";\\n' | sudo tee /etc/apt/apt.conf.d/20auto-upgrades", 'sudo systemctl enable --now unattended-upgrades');
  }
  const checks: string[] = [];
  if (tasks.has('ufw')) checks.push('sudo ufw status verbose');
  if (tasks.has('fail2ban')) checks.push('sudo fail2ban-client status sshd');
  if (tasks.has('unattended-upgrades')) checks.push('systemctl is-active unattended-upgrades');
  return [
    {
      title: 'Harden the host: ' + [...tasks].join(', '),
      description: 'No Docker and no containers: ' + [
        tasks.has('ufw') ? `ufw allows SSH (port ${stack.sshPort}) from ADMIN_CIDR${stack.allowlist.length ? ` and ${stack.allowlist.join(', ')}` : ''} and keeps every port something already listens on, then closes the rest` : '',
        tasks.has('fail2ban') ? 'fail2ban bans addresses that fail SSH logins' : '',
        tasks.has('unattended-upgrades') ? 'security updates install themselves daily' : '',
      ].filter(Boolean).join('; ') + '.',
      commands: [remote(script.join('\n'), ['ADMIN_CIDR'])],
    },
    { title: 'Verify the host', description: 'Each service reports its state.', commands: [remote(checks.join('\n'))] },
  ];
}

/** The ordered steps that deploy a stack, each with the exact commands the execution stage runs. */
export function planSteps(stack: Stack): PlanStep[] {
  const steps: PlanStep[] = [...provisionSteps(stack)];
  if (stack.hostOnly) return [...steps, ...hostOnlySteps(stack)];
  const names = new Set(stack.services.map((s) => s.name));
  const webPorts = [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]!))];
  steps.push({
    title: 'Prepare the host: Docker, firewall, SSH hardening',
    description: 'Install Docker Engine and the Compose v2 plugin from Ubuntu, allow SSH only from ADMIN_CIDR plus the published ports, and turn off SSH password logins.' +
      (names.has('elasticsearch') ? ' Elasticsearch also needs vm.max_map_count=262144.' : ''),
    commands: [
      remote(
        [
          'sudo apt-get update -q',
          ...(stack.machine.volumeGb ? dataVolumeMount() : []),
          'sudo DEBIAN_FRONTEND=noninteractive apt-get install -yq docker.io docker-compose-v2 ufw',
          'sudo systemctl enable --now docker',
          'sudo ufw default deny incoming',
          'sudo ufw default allow outgoing',
          ...sshSources(stack).map((src) => `sudo ufw allow from "${src}" to any port ${stack.sshPort} proto tcp`),
          ...webPorts.flatMap((p) => (stack.allowScope === 'all' && stack.allowlist.length ? stack.allowlist.map((src) => `sudo ufw allow from ${src} to any port ${p} proto tcp`) : [`sudo ufw allow ${p}/tcp`])),
          'sudo ufw --force enable',
          "sudo sed -i -E 's/^#?PasswordAuthentication .*/PasswordAuthentication no/' /etc/ssh/sshd_config",
          'sudo systemctl reload ssh',
          ...(names.has('elasticsearch')
            ? ["echo 'vm.max_map_count=262144' | sudo tee /etc/sysctl.d/99-elasticsearch.conf", 'sudo sysctl -w vm.max_map_count=262144']
            : []),
        ].join('\n'),
        ['ADMIN_CIDR'],
      ),
    ],
  });
  const dirs = [...new Set(stack.files.map((f) => f.path.split('/').slice(0, -1).join('/')).filter(Boolean))];
  steps.push({
    title: 'Write the stack files',
    description: 'The docker-compose.yml and the configuration files of the architecture plan, exactly as planned, in the workspace folder `stack/`.',
    commands: [
      `mkdir -p stack${dirs.map((d) => ` stack/${d}`).join('')}`,
      heredoc('docker-compose.yml', stack.composeYaml),
      ...stack.files.map((f) => heredoc(f.path, f.content)),
    ],
  });
  if (names.has('app')) {
    const r = stack.repository;
    steps.push({
      title: 'Fetch the application source',
      description: 'Clone the application into `stack/app`, where Compose builds it with its Dockerfile.',
      commands: [
        r
          ? `git clone --depth 1 --branch ${r.branch} "https://x-access-token:$GITHUB_TOKEN@github.com/${r.fullName}.git" stack/app && git -C stack/app remote set-url origin https://github.com/${r.fullName}.git`
          : 'git clone --depth 1 "$APP_REPOSITORY_URL" stack/app',
        'test -f stack/app/Dockerfile || { echo "stack/app has no Dockerfile" >&2; exit 1; }',
      ],
    });
  }
  const envVars = [...new Set(stack.secrets.map((s) => s.name).filter((n) => stack.composeYaml.includes(`\${${n}}`)))];
  steps.push({
    title: 'Write the environment file from User Secrets',
    description: `\`stack/.env\` (mode 600) holds ${envVars.length ? envVars.join(', ') : 'no secret'}; values come from User Secrets and are never printed.`,
    commands: [
      `umask 077 && : > stack/.env${envVars.map((v) => ` && printf '%s=%s\\n' ${v} "$${v}" >> stack/.env`).join('')}`,
    ],
  });
  steps.push({
    title: 'Copy the stack to the server',
    description: 'Create /opt/stack on the server and copy the files (keeping the .env permissions).',
    commands: [
      `${SSH} 'sudo mkdir -p /opt/stack && sudo chown "$(id -u):$(id -g)" /opt/stack'`,
      `tar -C stack -czf - . | ${SSH} 'tar -C /opt/stack -xzf -'`,
    ],
  });
  if (stack.domain) {
    const hosts = stack.routes.map((r) => r.host).filter((h) => h !== ':80');
    steps.push({
      title: 'Point DNS at the server',
      description: `Create A records for ${hosts.join(', ')} pointing to the server's public IP at your DNS provider; this step waits (up to 15 minutes) until they resolve to it.`,
      commands: [
        `IP=$(cut -d@ -f2 .server_target); echo "Create A records: ${hosts.join(', ')} -> $IP"; for i in $(seq 1 90); do ok=1; for h in ${hosts.join(' ')}; do [ "$(getent ahostsv4 "$h" | awk 'NR==1{print $1}')" = "$IP" ] || ok=0; done; [ $ok = 1 ] && exit 0; sleep 10; done; echo "DNS does not point at $IP yet" >&2; exit 1`,
      ],
    });
  }
  if (stack.proxy === 'nginxProxy' && stack.tls) {
    const hosts = stack.routes.map((r) => `-d ${r.host}`).join(' ');
    steps.push({
      title: "Obtain the Let's Encrypt certificate",
      description: 'Certbot answers the HTTP challenge itself before Nginx starts; the certbot service renews it afterwards.',
      commands: [
        remote(`cd /opt/stack\nsudo docker compose run --rm -p 80:80 --entrypoint certbot certbot certonly --standalone ${hosts} --cert-name ${stack.domain} --email "$ACME_EMAIL" --agree-tos --non-interactive < /dev/null`, ['ACME_EMAIL']),
      ],
    });
  }
  const start: string[] = ['cd /opt/stack', 'sudo docker compose pull --quiet'];
  if (names.has('app')) start.push('sudo docker compose build --pull app');
  if (names.has('elasticsearch')) {
    start.push(
      'sudo docker compose up -d --wait elasticsearch',
      'sudo docker compose exec -T elasticsearch sh -c \'curl -sf -u "elastic:$ELASTIC_PASSWORD" -X POST -H "Content-Type: application/json" http://127.0.0.1:9200/_security/user/kibana_system/_password -d "{\\"password\\":\\"$KIBANA_SYSTEM_PASSWORD\\"}"\' < /dev/null',
    );
  }
  start.push('sudo docker compose up -d --wait --wait-timeout 600', 'sudo docker compose ps');
  steps.push({
    title: 'Start the stack',
    description: 'Pull the pinned images' + (names.has('app') ? ', build the application' : '') + (names.has('elasticsearch') ? ', start Elasticsearch and set the kibana_system password' : '') + ', then start everything and wait until every healthcheck passes.',
    commands: [remote(start.join('\n'))],
  });
  const backups: string[] = [];
  if (names.has('postgres')) backups.push('0 3 * * * root cd /opt/stack && docker compose exec -T postgres pg_dump -U app app | gzip > /opt/stack/backups/postgres-$(date +\\%F).sql.gz');
  if (names.has('mysql')) backups.push('15 3 * * * root cd /opt/stack && docker compose exec -T mysql sh -c \'mysqldump -u root -p"$MYSQL_ROOT_PASSWORD" --single-transaction --all-databases\' | gzip > /opt/stack/backups/mysql-$(date +\\%F).sql.gz');
  if (names.has('mongo')) backups.push('30 3 * * * root cd /opt/stack && docker compose exec -T mongo sh -c \'mongodump -u root -p "$MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase admin --archive --gzip\' > /opt/stack/backups/mongo-$(date +\\%F).archive.gz');
  if (stack.proxy === 'nginxProxy' && stack.tls) backups.push('30 4 * * 1 root cd /opt/stack && docker compose exec -T proxy nginx -s reload');
  if (backups.length) {
    steps.push({
      title: names.has('postgres') || names.has('mysql') || names.has('mongo') ? 'Schedule nightly database backups' : 'Schedule maintenance',
      description: 'A cron file on the host: ' + (backups.length ? 'database dumps to /opt/stack/backups (kept 14 days)' : '') + (stack.proxy === 'nginxProxy' && stack.tls ? ' and a weekly Nginx reload to pick up renewed certificates' : '') + '.',
      commands: [
        remote(
          [
            'mkdir -p /opt/stack/backups',
            "sudo tee /etc/cron.d/stack-maintenance > /dev/null <<'CRON'",
            ...backups,
            '45 4 * * * root find /opt/stack/backups -type f -mtime +14 -delete',
            'CRON',
          ].join('\n'),
        ),
      ],
    });
  }
  const checks: string[] = [];
  for (const r of stack.routes) {
    checks.push(r.host === ':80' ? 'curl -fsS -o /dev/null -w "%{http_code}\\n" "http://$(cut -d@ -f2 .server_target)/"' : `curl -fsS -o /dev/null -w "%{http_code}\\n" ${stack.tls ? 'https' : 'http'}://${r.host}/`);
  }
  if (!stack.routes.length) {
    for (const p of stack.published.filter((x) => !x.port.startsWith('127.0.0.1') && x.service !== 'logstash')) {
      checks.push(`curl -sS -o /dev/null -w "%{http_code}\\n" "http://$(cut -d@ -f2 .server_target):${p.port.split(':')[0]}/"`);
    }
  }
  checks.push(`${SSH} 'cd /opt/stack && sudo docker compose ps --format "{{.Service}} {{.Status}}" | tee /dev/stderr | grep -v "(healthy)"${stack.services.filter((x) => !x.healthcheck).map((x) => ` | grep -v "^${x.name} "`).join('')} && exit 1 || exit 0'`);
  steps.push({
    title: 'Verify the deployment',
    description: 'Every service reports healthy and each public address answers.',
    commands: checks,
  });
  return steps;
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
