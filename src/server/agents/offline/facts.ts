/**
 * What a conversation has established about the stack, read from the person's own words however they
 * phrase them: components (with negations such as "no redis", "MySQL instead of Postgres"), provider,
 * region, domain, machine size, storage and load. Later messages override earlier ones.
 */

import { readSshTarget, type SshTarget } from './sshTarget';

export type ProviderId = 'aws' | 'gcp' | 'azure' | 'digitalocean' | 'hetzner' | 'vps';
export type ProxyId = 'caddy' | 'nginxProxy' | 'traefik';

export interface Facts {
  /** Component ids of components.ts other than proxies. */
  components: Set<string>;
  proxy: ProxyId | undefined;
  /** A proxy was asked for without naming one. */
  genericProxy: boolean;
  tls: boolean;
  domain: string | undefined;
  /** The person said there is no domain (serve on the IP). */
  noDomain: boolean;
  provider: ProviderId | undefined;
  region: string | undefined;
  instanceType: string | undefined;
  memoryGb: number | undefined;
  cpus: number | undefined;
  storageGb: number | undefined;
  load: string | undefined;
  /** Language of the application component, when one is named. */
  appLanguage: string | undefined;
  /** The person asked for a basic server (no particular workload). */
  basicServer: boolean;
  /** The person asked to go with sensible defaults for what is still open. */
  acceptsDefaults: boolean;
  /** The person's own server (user@host, SSH port), which makes the provider 'vps'. */
  sshTarget: SshTarget | undefined;
}

export const emptyFacts = (): Facts => ({
  components: new Set(),
  proxy: undefined,
  genericProxy: false,
  tls: false,
  domain: undefined,
  noDomain: false,
  provider: undefined,
  region: undefined,
  instanceType: undefined,
  memoryGb: undefined,
  cpus: undefined,
  storageGb: undefined,
  load: undefined,
  appLanguage: undefined,
  basicServer: false,
  acceptsDefaults: false,
  sshTarget: undefined,
});

interface Rule {
  pattern: RegExp;
  apply: (facts: Facts, on: boolean) => void;
}

const component = (id: string) => (facts: Facts, on: boolean) => {
  if (on) facts.components.add(id);
  else facts.components.delete(id);
};

const APP_LANGUAGES: Array<[RegExp, string]> = [
  [/\b(node\.?js|node (app|api|service|backend)|express|next\.?js|nest\.?js|typescript|javascript)\b/i, 'Node.js'],
  [/\b(django|flask|fastapi|python)\b/i, 'Python'],
  [/\b(rails|ruby)\b/i, 'Ruby'],
  [/\b(laravel|php|symfony)\b/i, 'PHP'],
  [/\b(spring( boot)?|java|kotlin)\b/i, 'Java'],
  [/\b(golang|go (app|service|api|backend))\b/i, 'Go'],
  [/\b(rust|actix|axum)\b/i, 'Rust'],
  [/(\.net|\bdotnet|\basp\.net|\bc#)/i, '.NET'],
];

const RULES: Rule[] = [
  { pattern: /\b(postgres(ql)?|psql|pgsql)\b/i, apply: component('postgres') },
  { pattern: /\b(mysql|mariadb)\b/i, apply: component('mysql') },
  { pattern: /\bmongo(db)?\b/i, apply: component('mongo') },
  { pattern: /\b(redis|valkey|cach(e|ing))\b/i, apply: component('redis') },
  { pattern: /\b(rabbit(mq)?|amqp|message (queue|broker)s?|job queues?|task queues?|queues?|brokers?)\b/i, apply: (f, on) => {
    if (!on) { f.components.delete('rabbitmq'); return; }
    if (!f.components.has('kafka')) f.components.add('rabbitmq');
  } },
  { pattern: /\bkafka\b/i, apply: (f, on) => {
    component('kafka')(f, on);
    if (on) f.components.delete('rabbitmq');
  } },
  { pattern: /\bn8n\b/i, apply: component('n8n') },
  { pattern: /\b(elk|elastic ?stack|elasticsearch|kibana|logstash|log (aggregation|management|search|analytics)|centrali[sz]ed (logging|logs))\b/i, apply: component('elk') },
  { pattern: /\b(prometheus|node[- ]exporter|metrics)\b/i, apply: component('prometheus') },
  { pattern: /\bgrafana\b/i, apply: (f, on) => {
    component('grafana')(f, on);
    if (on) f.components.add('prometheus');
  } },
  { pattern: /\bmonitoring\b/i, apply: (f, on) => {
    component('prometheus')(f, on);
    component('grafana')(f, on);
  } },
  { pattern: /\b(static (web)?site|website|landing page|web ?server|html pages?)\b/i, apply: component('web') },
  {
    pattern: /\b(node\.?js|node (app|api|service|backend)|application|python|ruby|express|next\.?js|nest\.?js|django|flask|fastapi|rails|laravel|php|symfony|spring( boot)?|java|kotlin|golang|go (app|service|api|backend)|rust|dotnet|my (own )?(app|application|api|service|backend)|web ?app(lication)?|api server|backend service)\b/i,
    apply: component('app'),
  },
  { pattern: /\bcaddy\b/i, apply: (f, on) => void (f.proxy = on ? 'caddy' : f.proxy === 'caddy' ? undefined : f.proxy) },
  { pattern: /\btraefik\b/i, apply: (f, on) => void (f.proxy = on ? 'traefik' : f.proxy === 'traefik' ? undefined : f.proxy) },
  { pattern: /\b(reverse[- ]proxy|proxy|load[- ]balancer|ingress)\b/i, apply: (f, on) => {
    f.genericProxy = on;
    if (!on) f.proxy = undefined;
  } },
  { pattern: /\b(ssl|tls|https|let'?s ?encrypt|certificates?|certbot)\b/i, apply: (f, on) => void (f.tls = on) },
  { pattern: /\b(aws|ec2|amazon( web services)?)\b/i, apply: (f, on) => void (on && (f.provider = 'aws')) },
  { pattern: /\b(gcp|google cloud|compute engine|gce)\b/i, apply: (f, on) => void (on && (f.provider = 'gcp')) },
  { pattern: /\bazure\b/i, apply: (f, on) => void (on && (f.provider = 'azure')) },
  { pattern: /\b(digital ?ocean|droplets?)\b/i, apply: (f, on) => void (on && (f.provider = 'digitalocean')) },
  { pattern: /\bhetzner\b/i, apply: (f, on) => void (on && (f.provider = 'hetzner')) },
  {
    pattern: /\b(vps|my (own )?server|existing server|bare[- ]?metal|linode|vultr|ovh|contabo|ubuntu server|generic (linux )?server)\b/i,
    apply: (f, on) => void (on && f.provider === undefined && (f.provider = 'vps')),
  },
  { pattern: /\b(basic|simple|plain|bare|minimal) (vps|server|instance|host|machine|droplet|ec2)\b/i, apply: (f, on) => void (f.basicServer = on) },
];

/** Words that negate a component named within the next few words ("no redis", "without monitoring"). */
const NEGATION = /\b(no|not|without|don'?t|do not|doesn'?t|skip|remove|drop|exclude|except|no need for|never)\b/i;
const INSTEAD_OF = /\b(instead of|rather than|replace)\b/i;
const DEFAULTS = /\b(defaults?|you (decide|choose|pick)|not sure|don'?t know|no idea|whatever|up to you|sensible|recommend(ed)?|your call|as you see fit)\b/i;

const FILE_LIKE_TLDS = new Set([
  'js', 'ts', 'yml', 'yaml', 'json', 'txt', 'md', 'conf', 'sh', 'py', 'env', 'log', 'toml', 'lock', 'html', 'css', 'xml', 'cfg', 'ini', 'rb', 'go', 'rs', 'java', 'php', 'net', 'tf',
]);

function isNegated(clause: string, index: number): boolean {
  const before = clause.slice(0, index);
  if (INSTEAD_OF.test(before) && !/\bwith\b/i.test(before.slice(before.search(INSTEAD_OF)))) return true;
  const words = before.trim().split(/\s+/).slice(-4).join(' ');
  return NEGATION.test(words);
}

const REGION_PATTERNS: Array<[RegExp, ProviderId | undefined]> = [
  [/\b(us|eu|ap|sa|ca|me|af|il)-(north|south|east|west|central|northeast|southeast|northwest|southwest)-\d\b/i, 'aws'],
  [/\b(us|europe|asia|australia|northamerica|southamerica|me)-(north|south|east|west|central|northeast|southeast|northwest|southwest)\d\b/i, 'gcp'],
  [/\b(nyc[1-3]|sfo[23]|ams3|sgp1|lon1|fra1|tor1|blr1|syd1)\b/i, 'digitalocean'],
  [/\b(fsn1|nbg1|hel1|ash|hil|sin)\b/, 'hetzner'],
  [/\b(eastus2?|westus[23]?|westeurope|northeurope|uksouth|germanywestcentral|southeastasia|centralus)\b/i, 'azure'],
];

/** City or country names to a region per provider. */
const PLACES: Array<[RegExp, Partial<Record<ProviderId, string>>]> = [
  [/\b(frankfurt|germany)\b/i, { aws: 'eu-central-1', gcp: 'europe-west3', azure: 'germanywestcentral', digitalocean: 'fra1', hetzner: 'fsn1', vps: 'Frankfurt, Germany' }],
  [/\b(ireland|dublin)\b/i, { aws: 'eu-west-1', gcp: 'europe-west1', azure: 'northeurope', digitalocean: 'lon1', hetzner: 'nbg1', vps: 'Ireland' }],
  [/\b(london|uk|united kingdom|england)\b/i, { aws: 'eu-west-2', gcp: 'europe-west2', azure: 'uksouth', digitalocean: 'lon1', hetzner: 'nbg1', vps: 'London, UK' }],
  [/\b(paris|france)\b/i, { aws: 'eu-west-3', gcp: 'europe-west9', azure: 'francecentral', digitalocean: 'fra1', hetzner: 'nbg1', vps: 'Paris, France' }],
  [/\b(amsterdam|netherlands)\b/i, { aws: 'eu-central-1', gcp: 'europe-west4', azure: 'westeurope', digitalocean: 'ams3', hetzner: 'nbg1', vps: 'Amsterdam, Netherlands' }],
  [/\b(finland|helsinki)\b/i, { aws: 'eu-north-1', gcp: 'europe-north1', azure: 'northeurope', digitalocean: 'ams3', hetzner: 'hel1', vps: 'Helsinki, Finland' }],
  [/\b(europe|eu)\b/i, { aws: 'eu-central-1', gcp: 'europe-west3', azure: 'westeurope', digitalocean: 'fra1', hetzner: 'fsn1', vps: 'Europe' }],
  [/\b(virginia|us[- ]east|east coast|new york)\b/i, { aws: 'us-east-1', gcp: 'us-east4', azure: 'eastus', digitalocean: 'nyc3', hetzner: 'ash', vps: 'US East' }],
  [/\b(oregon|california|us[- ]west|west coast|san francisco)\b/i, { aws: 'us-west-2', gcp: 'us-west1', azure: 'westus2', digitalocean: 'sfo3', hetzner: 'hil', vps: 'US West' }],
  [/\b(USA|US|U\.S\.|United States|America)\b/, { aws: 'us-east-1', gcp: 'us-central1', azure: 'eastus', digitalocean: 'nyc3', hetzner: 'ash', vps: 'United States' }],
  [/\b(singapore|southeast asia)\b/i, { aws: 'ap-southeast-1', gcp: 'asia-southeast1', azure: 'southeastasia', digitalocean: 'sgp1', hetzner: 'sin', vps: 'Singapore' }],
  [/\b(tokyo|japan)\b/i, { aws: 'ap-northeast-1', gcp: 'asia-northeast1', azure: 'japaneast', digitalocean: 'sgp1', hetzner: 'sin', vps: 'Tokyo, Japan' }],
  [/\b(sydney|australia)\b/i, { aws: 'ap-southeast-2', gcp: 'australia-southeast1', azure: 'australiaeast', digitalocean: 'syd1', hetzner: 'sin', vps: 'Sydney, Australia' }],
  [/\b(mumbai|india|bangalore)\b/i, { aws: 'ap-south-1', gcp: 'asia-south1', azure: 'centralindia', digitalocean: 'blr1', hetzner: 'sin', vps: 'India' }],
  [/\b(canada|toronto|montreal)\b/i, { aws: 'ca-central-1', gcp: 'northamerica-northeast1', azure: 'canadacentral', digitalocean: 'tor1', hetzner: 'ash', vps: 'Canada' }],
  [/\b(brazil|sao paulo|são paulo)\b/i, { aws: 'sa-east-1', gcp: 'southamerica-east1', azure: 'brazilsouth', digitalocean: 'nyc3', hetzner: 'ash', vps: 'Brazil' }],
];

/** Places named so far, resolved once the provider is known (the person may name the place first). */
interface Pending {
  place: Partial<Record<ProviderId, string>> | undefined;
}

function readScalars(text: string, facts: Facts, pending: Pending): void {
  let exactRegion = false;
  for (const [pattern, provider] of REGION_PATTERNS) {
    const m = text.match(pattern);
    if (m) {
      facts.region = m[0];
      if (provider && facts.provider === undefined) facts.provider = provider;
      pending.place = undefined;
      exactRegion = true;
    }
  }
  for (const [pattern, regions] of exactRegion ? [] : PLACES) {
    if (pattern.test(text)) {
      pending.place = regions;
      break;
    }
  }
  const instance =
    text.match(/\b[tmcr][3-7][a-z]{0,2}\.(nano|micro|small|medium|large|\d*xlarge)\b/i) ??
    text.match(/\bs-\d+vcpu-\d+gb\b/i) ??
    text.match(/\bc[apx]x\d{2}\b/i) ??
    text.match(/\be2-(micro|small|medium|standard-\d+)\b/i) ??
    text.match(/\bStandard_[A-Z]\d+[a-z]*\b/);
  if (instance) facts.instanceType = instance[0];
  const memory = text.match(/\b(\d{1,3})\s?(gb|gib|g)\s*(of\s+)?(ram|memory)\b/i);
  if (memory) facts.memoryGb = Number(memory[1]);
  const cpus = text.match(/\b(\d{1,2})\s?(v?cpus?|cores?)\b/i);
  if (cpus) facts.cpus = Number(cpus[1]);
  const storage =
    text.match(/\b(\d{1,5})\s?(gb|gib|tb)\b[^.\n\d]{0,20}\b(disk|storage|ssd|data|volume|space)\b/i) ??
    text.match(/\b(disk|storage|ssd|data|volume|space)\b[^.\n\d]{0,20}(\d{1,5})\s?(gb|gib|tb)\b/i);
  if (storage) {
    const [amount, unit] = /^\d/.test(storage[1]!) ? [storage[1]!, storage[2]!] : [storage[2]!, storage[3]!];
    facts.storageGb = Number(amount) * (/tb/i.test(unit) ? 1024 : 1);
  }
  const load = text.match(/\b(\d[\d,.]*\s?k?)\s*(concurrent |daily |monthly |active )?(users|visitors|requests( per (second|minute|day))?|req\/s|rps|workflows|executions|events per second|customers)\b/i);
  if (load) facts.load = load[0];
  else {
    const qualitative = text.match(/\b(low|light|small|modest|moderate|medium|high|heavy)\s+(traffic|load|usage|use|volume)\b/i) ?? text.match(/\b(personal|hobby|small team|side project)\b/i);
    if (qualitative) facts.load = qualitative[0];
  }
  const emailFree = text.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, ' ');
  const domainRe = /\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))\b/gi;
  for (const m of emailFree.matchAll(domainRe)) {
    const tld = m[2]!.toLowerCase();
    const name = m[1]!.toLowerCase();
    if (emailFree[(m.index ?? 0) + m[0].length] === '/' || emailFree[(m.index ?? 0) - 1] === '/') continue;
    if (FILE_LIKE_TLDS.has(tld) || /^(node|next|nest|vue|express|asp)\./.test(name) || /\d+\.\d+/.test(name) || /^[a-z]{1,2}\d[a-z]{0,2}\.(nano|micro|small|medium|large|\d*xlarge|metal)$/.test(name)) continue;
    facts.domain = name;
    facts.noDomain = false;
  }
  if (/\b(no (domain|dns)|without (a )?domain|(just|only) (the |an |by )?ip|ip address only|don'?t have a domain)\b/i.test(text)) {
    facts.noDomain = true;
    facts.domain = undefined;
  }
  if (DEFAULTS.test(text)) facts.acceptsDefaults = true;
}

/** Splits a message into clauses so that a negation only reaches the words it governs. */
function clauses(text: string): string[] {
  return text.split(/[.;!?]+(?=\s|$)|\n+|,\s*(?=but\b|and no\b|without\b)|\bbut\b/i).map((c) => c.trim()).filter(Boolean);
}

/**
 * Reads facts from texts in order (the person's messages, or a requirements document's sections).
 * A later text may add, remove or replace what an earlier one said.
 */
export function extractFacts(texts: string[], start: Facts = emptyFacts()): Facts {
  const facts: Facts = { ...start, components: new Set(start.components) };
  const pending: Pending = { place: undefined };
  for (const text of texts) {
    for (const clause of clauses(text)) {
      for (const rule of RULES) {
        const global = new RegExp(rule.pattern.source, rule.pattern.flags.includes('g') ? rule.pattern.flags : `${rule.pattern.flags}g`);
        for (const m of clause.matchAll(global)) rule.apply(facts, !isNegated(clause, m.index ?? 0));
      }
      const nginx = clause.match(/\bnginx\b/i);
      if (nginx) {
        const on = !isNegated(clause, nginx.index ?? 0);
        const asProxy = /\b(proxy|reverse|ssl|tls|https|certbot|in front|load[- ]balanc)/i.test(clause) || [...facts.components].some((c) => c !== 'web');
        if (asProxy) facts.proxy = on ? 'nginxProxy' : facts.proxy === 'nginxProxy' ? undefined : facts.proxy;
        else component('web')(facts, on);
      }
      for (const [pattern, language] of APP_LANGUAGES) {
        const m = clause.match(pattern);
        if (m && !isNegated(clause, m.index ?? 0)) facts.appLanguage = language;
      }
    }
    readScalars(text, facts, pending);
    const target = readSshTarget(text);
    if (target) {
      facts.sshTarget = target;
      facts.provider = 'vps';
    }
  }
  if (pending.place) facts.region = pending.place[facts.provider ?? 'vps'];
  return facts;
}

/** The reverse proxy the stack gets: the named one, else Caddy when a proxy, TLS or a domain is wanted. */
export function chosenProxy(facts: Facts): ProxyId | undefined {
  if (facts.proxy) return facts.proxy;
  if (facts.genericProxy || facts.tls || facts.domain) return 'caddy';
  return undefined;
}
