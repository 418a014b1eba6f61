/**
 * What a conversation has established about the stack, read from the person's own words however they
 * phrase them: components (with negations such as "no redis", "MySQL instead of Postgres"), provider,
 * region, domain, machine size, storage and load. Later messages override earlier ones.
 */

import { defaultProducts, EXISTING_SERVER, PLACES, PRODUCTS, PROVIDERS, providerOf } from './knowledge';
import type { Place } from '../catalogue/providerSchema';
import { detectLanguage, findImages, PRODUCT_RULES, PROXY_RULES, USED_BY_KIND_WORDS, unknownNames, alternativesFor } from './products';
import { productOfImage } from '../verifier/catalogueKnowledge';
import { readSpokenTarget, readSshTarget, type SshTarget } from './sshTarget';
import { emptyStackModel, type Backup } from '../../../shared/stackModel';
import { readBackupWords, type BackupWords } from './backupWords';
import { BACKUP_LINE_PREFIX } from './backupSteps';
import { namesServerProxy, readServerProxy, type SaidServerProxy } from './serverProxy';
import { imageOfVersion, versionAfter } from './versions';

/** The id of a provider file (catalogue/providers/<id>.yaml). */
export type ProviderId = string;
/** Kinds of workload asked for without naming a product; the default product fills them only when none of that kind is named. */
export type Want = 'monitoring' | 'metrics' | 'logging' | 'cache' | 'queue';
export type HostTask = 'ufw' | 'fail2ban' | 'unattended-upgrades';

/** A container from an image the person named, run as given. */
export interface CustomService {
  name: string;
  image: string;
  port?: number;
  volumes: string[];
  environment: Record<string, string>;
}

/** A port the person asked for: on the host, for a product's container port (22 for Git over SSH) or its web port. */
export interface PortAsk {
  host: number;
  component?: string;
  ssh?: boolean;
}
/** The catalogue id of a reverse proxy product (one with `proxy` in its file). */
export type ProxyId = string;

export interface Facts {
  /** Component ids of components.ts other than proxies. */
  components: Set<string>;
  proxy: ProxyId | undefined;
  /** A proxy was asked for without naming one. */
  genericProxy: boolean;
  tls: boolean;
  /** The person said in words that plain HTTP is what they want ("plain http is fine", "a lab on my LAN"): sensitive apps may then be served without TLS. */
  plainHttpOk: boolean;
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
  /** The server has GPUs for the stack ("on my GPU server"): products whose catalogue entry can use them get them. */
  gpu: boolean;
  /** The person asked to go with sensible defaults for what is still open. */
  acceptsDefaults: boolean;
  /** Products the person ruled out ("not Prometheus", "MariaDB, not MySQL"): never added by a default. */
  excluded: Set<string>;
  /**
   * Products the person removed although another product needs them (the panel's remove, a model's
   * removeComponent): they stay out, and no default fills a need they were a choice of; the plan says what
   * now lacks what it needs instead.
   */
  heldOut: Set<string>;
  wants: Set<Want>;
  /** Products the person said must stay private ("keep Adminer private", "don't expose Postgres"): never routed or published. */
  keepPrivate: Set<string>;
  /** Software named that the catalogue does not hold, as the person wrote it. */
  unknown: string[];
  /** Unknown names the person chose to go on without ("skip X", "continue", or asked once and not answered): the plan names them. */
  skipped: string[];
  /** Catalogued products run from the image the person named (component id → image). */
  images: Record<string, string>;
  custom: CustomService[];
  /** Every domain named, with the product it is for when the sentence says. */
  /** Hosts the stack answers on; `endpoint` names which of a product's endpoints one serves (MinIO's console). */
  domains: Array<{ host: string; component?: string; endpoint?: string }>;
  ports: PortAsk[];
  /** The host's own SSH port, when the person moves it. */
  sshPort: number | undefined;
  /** Sources allowed in (CIDRs); `ssh` when the person limited SSH only. */
  allowlist: string[];
  allowScope: 'ssh' | 'all';
  hostTasks: Set<HostTask>;
  /** "No containers", "without Docker": the plan touches the host only. */
  noContainers: boolean;
  /** The language the person writes in, when it is not English. */
  language: string | undefined;
  /** The person's own server (user@host, SSH port), which makes the provider the existing server. */
  sshTarget: SshTarget | undefined;
  /** The stack model's backup settings (destination, schedule, components not backed up); the model's defaults when absent. */
  backup?: Backup;
  /** What the last words about the backup destination said that could not be used (a password in it, no bucket). */
  backupProblems?: string[];
  /** The reverse proxy the person said their server already runs on 80/443 (serverProxy.ts). */
  serverProxy?: SaidServerProxy;
}

export const emptyFacts = (): Facts => ({
  components: new Set(),
  proxy: undefined,
  genericProxy: false,
  tls: false,
  plainHttpOk: false,
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
  gpu: false,
  acceptsDefaults: false,
  excluded: new Set(),
  heldOut: new Set(),
  wants: new Set(),
  keepPrivate: new Set(),
  unknown: [],
  skipped: [],
  images: {},
  custom: [],
  domains: [],
  ports: [],
  sshPort: undefined,
  allowlist: [],
  allowScope: 'all',
  hostTasks: new Set(),
  noContainers: false,
  language: undefined,
  sshTarget: undefined,
});

/** A copy that a later text can change without touching the original. */
export function cloneFacts(f: Facts): Facts {
  return {
    ...f,
    components: new Set(f.components),
    excluded: new Set(f.excluded),
    heldOut: new Set(f.heldOut),
    wants: new Set(f.wants),
    keepPrivate: new Set(f.keepPrivate),
    unknown: [...f.unknown],
    skipped: [...f.skipped],
    images: { ...f.images },
    custom: f.custom.map((c) => ({ ...c, volumes: [...c.volumes], environment: { ...c.environment } })),
    domains: f.domains.map((d) => ({ ...d })),
    ports: f.ports.map((p) => ({ ...p })),
    allowlist: [...f.allowlist],
    hostTasks: new Set(f.hostTasks),
    ...(f.backup ? { backup: { ...f.backup, skip: [...f.backup.skip] } } : {}),
  };
}

interface Rule {
  pattern: RegExp;
  /** `word` is the text the pattern matched. */
  apply: (facts: Facts, on: boolean, word: string) => void;
  /** Also read from the planner's own documents (provider, TLS), where products are read from their stack lines. */
  doc?: boolean;
}

const component = (id: string) => (facts: Facts, on: boolean) => {
  if (on) {
    facts.components.add(id);
    facts.excluded.delete(id);
    facts.heldOut.delete(id);
  } else {
    facts.components.delete(id);
    facts.excluded.add(id);
  }
};

const want = (w: Want) => (facts: Facts, on: boolean) => void (on ? facts.wants.add(w) : facts.wants.delete(w));
const hostTask = (...tasks: HostTask[]) => (facts: Facts, on: boolean) => {
  for (const t of tasks) {
    if (on) facts.hostTasks.add(t);
    else facts.hostTasks.delete(t);
  }
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

const proxy = (id: string) => (f: Facts, on: boolean) => void (f.proxy = on ? id : f.proxy === id ? undefined : f.proxy);

/** Regular expression sources as one pattern of whole words, case-insensitive unless `matchCase`. */
const wordsPattern = (words: string[], matchCase = false): RegExp => new RegExp(`\\b(${words.join('|')})\\b`, matchCase ? '' : 'i');

/** Providers a person names (every one but the existing server). */
const NAMED_PROVIDERS = Object.values(PROVIDERS).filter((p) => !p.existing);

/** Catalogued products are read by namesIn; these rules read everything else. */
const RULES: Rule[] = [
  { pattern: /\b(cach(e|ing))\b/i, apply: want('cache') },
  { pattern: /\b(message (queue|broker)s?|job queues?|task queues?|queues?|brokers?)\b/i, apply: want('queue') },
  { pattern: /\bmonitoring\b/i, apply: want('monitoring') },
  { pattern: /\bmetrics\b/i, apply: want('metrics') },
  { pattern: /\b(log (aggregation|management|search|analytics)|centrali[sz]ed (logging|logs)|logging stack)\b/i, apply: want('logging') },
  { pattern: /\b(ufw|firewall)\b/i, apply: hostTask('ufw') },
  { pattern: /\bfail2ban\b/i, apply: hostTask('fail2ban') },
  { pattern: /\b(unattended[- ]upgrades|automatic (security )?updates|auto[- ]?updates)\b/i, apply: hostTask('unattended-upgrades') },
  { pattern: /\bharden(ing|ed)?\b/i, apply: hostTask('ufw', 'fail2ban', 'unattended-upgrades') },
  { pattern: /\b(reverse[- ]proxy|proxy|load[- ]balancer|ingress)\b/i, apply: (f, on) => {
    f.genericProxy = on;
    if (!on) f.proxy = undefined;
  } },
  { pattern: /\b(ssl|tls|https|let'?s ?encrypt|certificates?|certbot)\b/i, apply: (f, on) => void (f.tls = on), doc: true },
  { pattern: /\b(plain[- ]?http|http[- ]only|unencrypted http|without (https|tls|ssl)|no (https|tls|ssl))\b/i, apply: (f, on) => void (f.plainHttpOk = on) },
  // A provider named (the last one named wins: "move from AWS to Hetzner"); the existing server's words
  // ("my own server", "a VPS") only while none is.
  { pattern: wordsPattern(NAMED_PROVIDERS.flatMap((p) => p.aliases)), apply: (f, on, word) => void (on && (f.provider = NAMED_PROVIDERS.find((p) => wordsPattern(p.aliases).test(word))!.id)), doc: true },
  { pattern: wordsPattern(EXISTING_SERVER.aliases), apply: (f, on) => void (on && f.provider === undefined && (f.provider = EXISTING_SERVER.id)), doc: true },
  { pattern: /\b(basic|simple|plain|bare|minimal) (vps|server|instance|host|machine|droplet|ec2)\b/i, apply: (f, on) => void (f.basicServer = on) },
  { pattern: /\b(gpus?|nvidia|cuda|graphics cards?|rtx ?\d{4}|geforce)\b/i, apply: (f, on) => void (f.gpu = on) },
];

/** Words that negate a component named within the next few words ("no redis", "without monitoring"). */
const NEGATION = /\b(no|not|without|don'?t|do not|doesn'?t|skip|remove|drop|exclude|except|no need for|never)\b/i;
const INSTEAD_OF = /\b(instead of|rather than|replace)\b/i;
const DEFAULTS = /\b(defaults?|you (decide|choose|pick)|not sure|don'?t know|no idea|whatever|up to you|sensible|recommend(ed)?|your call|as you see fit)\b/i;

const FILE_LIKE_TLDS = new Set([
  'js', 'ts', 'tsx', 'jsx', 'yml', 'yaml', 'json', 'txt', 'conf', 'env', 'log', 'toml', 'lock', 'html', 'css', 'xml', 'cfg', 'ini', 'rb', 'java', 'php', 'tf', 'mjs', 'cjs', 'exe', 'dll', 'so', 'jar', 'war', 'zip', 'gz', 'tgz', 'tar', 'sql', 'csv', 'pdf', 'png', 'jpg', 'svg', 'gif', 'bak', 'pem', 'key', 'crt', 'service', 'timer', 'socket', 'd',
]);

/** Real top-level domains that are also file extensions: a domain unless the name is a usual file name. */
const FILE_NAMES = /^(main|app|index|setup|install|readme|lib|mod|build|deploy|run|start|server|manage|requirements|changelog|cargo|script|init|entrypoint|docker-entrypoint|config|settings|wsgi|asgi)\.(sh|md|rs|py|go)$/;

/** Domain names in a text (any TLD), skipping e-mail addresses, file names, versions and instance types. */
export function domainsIn(text: string): Array<{ host: string; index: number }> {
  const out: Array<{ host: string; index: number }> = [];
  const emailFree = text.replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, (m) => ' '.repeat(m.length));
  const domainRe = /\b((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))\b/gi;
  for (const m of emailFree.matchAll(domainRe)) {
    const tld = m[2]!.toLowerCase();
    const name = m[1]!.toLowerCase();
    const at = m.index ?? 0;
    if (emailFree[at + m[0].length] === '/' || emailFree[at - 1] === '/' || emailFree[at - 1] === '@') continue;
    if (FILE_LIKE_TLDS.has(tld) || FILE_NAMES.test(name) || /^(node|next|nest|vue|express|asp|socket|chart|three|d3|alpine|ember)\./.test(name) || /\d+\.\d+/.test(name) || /^[a-z]{1,2}\d[a-z]{0,2}\.(nano|micro|small|medium|large|\d*xlarge|metal)$/.test(name)) continue;
    out.push({ host: name, index: at });
  }
  return out;
}

/** Where a negation's phrase ends: "Forgejo (not Gitea), with Postgres" rules out Gitea, not Postgres. */
const NEGATION_SCOPE_END = /[,()]|\bwith\b/gi;

function isNegated(clause: string, index: number): boolean {
  const whole = clause.slice(0, index);
  const ends = [...whole.matchAll(NEGATION_SCOPE_END)];
  const before = ends.length ? whole.slice(ends.at(-1)!.index! + ends.at(-1)![0].length) : whole;
  if (INSTEAD_OF.test(before) && !/\bwith\b/i.test(before.slice(before.search(INSTEAD_OF)))) return true;
  const words = before.trim().split(/\s+/).slice(-4).join(' ');
  return NEGATION.test(words);
}

/**
 * A name that says what the server already runs, not what to deploy: "nginx already runs on that box on
 * 80 and 443", "traefik from another project already holds 443", "port 8080 is used by a legacy java
 * thing". The ports it holds come from the server's inspection; putting a second one beside it (a new
 * nginx on 8080 that can get no certificate) or the person's own app in its place is not what was asked.
 */
function isAlreadyThere(clause: string, start: number, end: number): boolean {
  if (/^[^,;:]{0,40}?\b(already|is running|are running|currently runs?)\b/i.test(clause.slice(end))) return true;
  return /\b(used|taken|held|occupied|run|bound) by (an?|the|our|my|some)?\s*((old|legacy|existing|other|another)\s+)*$/i.test(clause.slice(0, start));
}

/** Words after a port that say something else holds it. */
const PORT_HELD = /^\s*(is|are)?\s*(already\s+)?(used|taken|in use|occupied|held|busy|bound)\b/i;
/**
 * Words before a port that say something else holds it ("systemd-resolved holds port 53", "dnsmasq already
 * uses port 53"): a state said in the third person, never the request "use port 8080".
 */
const HELD_BEFORE = /\b(?:holds|holding|occupies|occupying|uses|blocks|blocking|binds|hogs|grabs|has)\s+(?:the\s+)?$/i;

/** Region ids as written (`eu-central-1`, `fsn1`): each names its provider too. */
const REGION_PATTERNS: Array<[RegExp, ProviderId]> = Object.values(PROVIDERS).flatMap((p) => (p.regionCodes ? [[wordsPattern(p.regionCodes.words, p.regionCodes.matchCase), p.id] as [RegExp, ProviderId]] : []));

/** City or country names (places.yaml), most specific first. */
const PLACE_PATTERNS: Array<[RegExp, Place]> = PLACES.map((p) => [wordsPattern(p.words, p.matchCase), p]);

/** Machine type names as written (`t3.large`, `cx32`). */
const SIZE_PATTERNS: RegExp[] = Object.values(PROVIDERS).flatMap((p) => (p.sizeNames ? [wordsPattern(p.sizeNames.words, p.sizeNames.matchCase)] : []));

/** The provider's region serving a place; where the provider lists no regions (the person's own server), the place in words. */
function regionOf(providerId: ProviderId | undefined, place: Place): string | undefined {
  const p = providerOf(providerId);
  if (!p.regions) return place.label;
  return Object.entries(p.regions).find(([, places]) => places.includes(place.id))?.[0];
}

/** Places named so far, resolved once the provider is known (the person may name the place first). */
interface Pending {
  place: Place | undefined;
}

function readScalars(text: string, facts: Facts, pending: Pending): void {
  // Region ids named, in the order written (one inside a longer one is part of it: `nyc1` of `us-nyc1`):
  // the last of the provider's own, else the last, which names its provider.
  const found = REGION_PATTERNS.flatMap(([pattern, provider]) => {
    const m = text.match(pattern);
    return m ? [{ provider, code: m[0], at: m.index ?? 0 }] : [];
  });
  const within = (a: { code: string; at: number }, b: { code: string; at: number }): boolean => a !== b && a.at >= b.at && a.at + a.code.length <= b.at + b.code.length && a.code.length < b.code.length;
  const codes = found.filter((c) => !found.some((o) => within(c, o))).sort((a, b) => a.at - b.at);
  const own = codes.filter((c) => c.provider === facts.provider);
  const code = (own.length ? own : codes).at(-1);
  const exactRegion = code !== undefined;
  if (code) {
    facts.region = code.code;
    facts.provider ??= code.provider;
    pending.place = undefined;
  }
  for (const [pattern, place] of exactRegion ? [] : PLACE_PATTERNS) {
    if (pattern.test(text)) {
      pending.place = place;
      break;
    }
  }
  const instance = SIZE_PATTERNS.map((pattern) => text.match(pattern)).find((m) => m);
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
  if (/\b(no (domain|dns)|without (a )?domain|(just|only) (the |an |by )?ip|ip address only|don'?t have a domain)\b/i.test(text)) {
    facts.noDomain = true;
    facts.domain = undefined;
    facts.domains = [];
  }
  if (DEFAULTS.test(text)) facts.acceptsDefaults = true;
}

/**
 * What must stay private and what may be public, said of the product the words govern: "keep Adminer
 * private", "Postgres must not be public", "don't expose Redis". The negation there governs the exposure,
 * not the product: the product stays in the stack (the rules above read "don't … Redis" as ruling it out).
 */

/** Said before the product: "keep Adminer private", "don't expose Redis". */
const PRIVATE_BEFORE = /\bkeep\s+(?=(?:[\w.-]+\s+){1,3}(?:private|internal)\b)|\b(?:don'?t|do not|never|no need to)\s+(?:expose|publish)\b/gi;
/** Said after it: "Postgres must not be public", "Adminer stays private", "Redis (internal only)". */
const PRIVATE_AFTER = /\b(?:kept|stays?|remains?|be|is|are)\s+(?:private|internal|local[- ]only|off the internet)\b|\b(?:private|internal)[- ]only\b|\bnot\s+(?:be\s+)?(?:public(?:ly)?|exposed|published|reachable from (?:the )?(?:internet|outside))\b/gi;
const PUBLIC_WORDS = /\b(?:make|made)\s+(?:[\w.-]+\s+){0,3}?public\b|\b(?:be|is)\s+public\b|\b(?:expose|publish)\b/gi;

function readPrivacy(clause: string, named: Array<{ id: string; index: number }>, facts: Facts): void {
  const privateAt: number[] = [];
  const mark = (id: string | undefined, at: number): void => {
    privateAt.push(at);
    if (!id) return;
    facts.keepPrivate.add(id);
    component(id)(facts, true);
  };
  for (const m of clause.matchAll(PRIVATE_BEFORE)) mark(named.find((n) => n.index > (m.index ?? 0))?.id, m.index ?? 0);
  for (const m of clause.matchAll(PRIVATE_AFTER)) mark(productNear(named, m.index ?? 0), m.index ?? 0);
  for (const m of clause.matchAll(PUBLIC_WORDS)) {
    const at = m.index ?? 0;
    if (privateAt.some((p) => Math.abs(p - at) < 24) || isNegated(clause, at)) continue;
    const id = productNear(named, at);
    if (id) facts.keepPrivate.delete(id);
  }
}

/** Words that make a domain named in the clause replace the stack's domain instead of adding one. */
const DOMAIN_CHANGE = /\b(instead|rather than|change|switch|move|replace|new domain|rename)\b/i;

/** Splits a message into clauses so that a negation only reaches the words it governs. */
function clauses(text: string): string[] {
  return text.split(/[.;!?]+(?=\s|$)|\n+|,\s*(?=but\b|and no\b|without\b)|\bbut\b/i).map((c) => c.trim()).filter(Boolean);
}

export interface ExtractOptions {
  /** The texts are the planner's own documents: products are read from their Required Stack lines, not from words. */
  document?: boolean;
}

const IPV4 = /\b((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})(\/(?:3[0-2]|[12]?\d))?\b/g;
const ALLOW_WORDS = /\b(allow(ed|list)?|white-?list(ed)?|only from|restrict(ed)?|office|from (our|my|the) (office|ip|network|vpn)|limit(ed)? to)\b/i;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A catalogued name in a clause: which product, where, and what kind of name it is. */
interface NameAt {
  id: string;
  index: number;
  end: number;
  proxy: boolean;
  kindWords: boolean;
}

/**
 * Every catalogued name in a clause, in order. A name inside a longer one of another product belongs to
 * that one ("nginx proxy manager" is not Nginx).
 */
function namesIn(clause: string): NameAt[] {
  const all = [...PRODUCT_RULES.map((r) => ({ r, proxy: false })), ...PROXY_RULES.map((r) => ({ r, proxy: true }))].flatMap(({ r, proxy }) =>
    [...clause.matchAll(r.pattern)].map((m) => ({ id: r.id, index: m.index ?? 0, end: (m.index ?? 0) + m[0].length, proxy, kindWords: r.kindWords })),
  );
  return all.filter((a) => !all.some((b) => b.id !== a.id && b.index <= a.index && b.end >= a.end && b.end - b.index > a.end - a.index)).sort((a, b) => a.index - b.index);
}

/** Component ids named in a clause by their names (not by kind words), with where. */
function productsIn(clause: string): Array<{ id: string; index: number }> {
  return namesIn(clause).filter((n) => !n.proxy && !n.kindWords).map(({ id, index }) => ({ id, index }));
}

/** What stands between two names offered as a choice: "X or Y", "X/Y", "X, or Y" (and the same word in the languages the planner reads). */
const OR_BETWEEN = /^\s*,?\s*(?:or|\/|oder|ou|o)\s*$/i;

/** Words that say a name two products answer to ("nginx") is meant as the reverse proxy. */
const PROXY_WORDS = /\b(proxy|reverse|ssl|tls|https|certbot|in front|load[- ]balanc)/i;

/**
 * Applies the catalogued names of a clause. Kind words ("website", "our Ruby app") are read only when the
 * clause names no product but ones such a workload uses: "a WordPress website" is WordPress. A name a
 * reverse proxy shares with another product is the proxy when the clause speaks of proxying or other
 * products are there to be put behind it, else the other product. Answers the kind-word products asked
 * for ("our Ruby app").
 */
function readNames(clause: string, facts: Facts, workloadNamed: boolean): string[] {
  const names = namesIn(clause).filter((n) => !(n.kindWords && workloadNamed) && !isAlreadyThere(clause, n.index, n.end) && !namesServerProxy(clause, n.index, n.end));
  const twinOf = (n: NameAt): NameAt | undefined => names.find((t) => t.proxy !== n.proxy && t.index === n.index && t.end === n.end);
  const asked: string[] = [];
  const apply = (n: NameAt): void => {
    const on = !isNegated(clause, n.index);
    (n.proxy ? proxy(n.id) : component(n.id))(facts, on);
    if (on && n.kindWords) asked.push(n.id);
    // "postgres 15": that version runs (an image named with its tag, read after the names, still wins).
    const version = on ? versionAfter(clause, n.end) : undefined;
    const image = version && PRODUCTS[n.id] ? imageOfVersion(PRODUCTS[n.id]!, version) : undefined;
    if (image) facts.images[n.id] = image;
  };
  // "postgres or mariadb, whatever works better": a choice left to the plan, so the first named is taken
  // and the others stay out (two databases for one consumer leave one running unwired).
  const chosenOver = new Set<NameAt>();
  names.forEach((n, i) => {
    const before = names[i - 1];
    if (before && !n.proxy && !before.proxy && OR_BETWEEN.test(clause.slice(before.end, n.index)) && (chosenOver.has(before) || !isNegated(clause, before.index))) chosenOver.add(n);
  });
  for (const n of names.filter((x) => !twinOf(x) && !chosenOver.has(x))) apply(n);
  for (const n of names.filter((x) => x.proxy && twinOf(x))) {
    const other = twinOf(n)!;
    apply(PROXY_WORDS.test(clause) || [...facts.components].some((c) => c !== other.id) ? n : other);
  }
  return asked;
}

/** The product a position in a clause is about: the nearest named before it, else the first after it. */
function productNear(named: Array<{ id: string; index: number }>, index: number): string | undefined {
  const before = named.filter((n) => n.index < index);
  return before.length ? before[before.length - 1]!.id : named.find((n) => n.index > index)?.id;
}

function readClause(clause: string, facts: Facts): void {
  const named = productsIn(clause);
  const workloadNamed = named.some((n) => !USED_BY_KIND_WORDS.has(n.id));
  const kindAsked = readNames(clause, facts, workloadNamed);
  facts.serverProxy = readServerProxy(clause, facts.serverProxy);
  for (const rule of RULES) {
    const global = new RegExp(rule.pattern.source, rule.pattern.flags.includes('g') ? rule.pattern.flags : `${rule.pattern.flags}g`);
    for (const m of clause.matchAll(global)) rule.apply(facts, !isNegated(clause, m.index ?? 0), m[0]);
  }
  if (/\b(no|without|not? using|don'?t (use|want))\s+(docker|containers?|compose)\b/i.test(clause)) facts.noContainers = true;
  readPrivacy(clause, named, facts);
  // Images named: a catalogued product's image replaces its pinned one; any other runs as the person's own service.
  for (const img of findImages(clause)) {
    const owner = productOfImage(img.image);
    if (owner) {
      facts.images[owner.id] = img.image;
      component(owner.id)(facts, true);
      continue;
    }
    const name = img.base.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '') || 'service';
    const port = clause.match(/\bport\s+(\d{2,5})\b/i) ?? clause.match(/\blistens? on\s+(?:port\s+)?(\d{2,5})\b/i);
    const volumes = [...clause.matchAll(/(?:volumes?|data|stores?|persist\w*)\s+(?:at|in|on|under)?\s*(\/[\w./-]+)/gi)].map((m, i) => `${name.replace(/-/g, '_')}_data${i ? i + 1 : ''}:${m[1]}`);
    const environment = Object.fromEntries([...clause.matchAll(/\b([A-Z][A-Z0-9_]{1,63})=([^\s,;]+)/g)].map((m) => [m[1]!, m[2]!]));
    facts.custom = facts.custom.filter((c) => c.name !== name);
    facts.custom.push({ name, image: img.image, ...(port ? { port: Number(port[1]) } : {}), volumes, environment });
    // The image answers for the software it was named for: by name, in the same sentence, or as the answer to the one open question.
    const answers = (u: string): boolean => img.image.toLowerCase().includes(u.toLowerCase()) || new RegExp(`\\b${escapeRe(u)}\\b`, 'i').test(clause);
    facts.unknown = facts.unknown.length === 1 ? [] : facts.unknown.filter((u) => !answers(u));
  }
  const software = unknownNames(clause);
  for (const name of software) {
    const at = clause.search(new RegExp(escapeRe(name), 'i'));
    const key = name.toLowerCase();
    facts.unknown = facts.unknown.filter((u) => u.toLowerCase() !== key);
    // "phpMyAdmin or Adminer": a choice, and the catalogue holds one of the two; that one is taken.
    const eitherKnown = named.some((n) => {
      const [from, to] = n.index < at ? [clause.indexOf(' ', n.index), at] : [at + name.length, n.index];
      return from >= 0 && from <= to && /^\s*(?:or|\/|oder|ou|o)\s*$/i.test(clause.slice(from, to));
    });
    if (!isNegated(clause, at) && !eitherKnown && !facts.custom.some((c) => c.name.includes(key)) && !facts.skipped.some((s) => s.toLowerCase() === key)) facts.unknown.push(name);
    // "outline wiki": the catalogued word after an unknown name says what kind of software it is; it asks for no product.
    const end = at + name.length;
    const kind = named.find((n) => n.index > end && /^\s{1,2}$/.test(clause.slice(end, n.index)));
    if (at >= 0 && kind && named.filter((n) => n.id === kind.id).length === 1) facts.components.delete(kind.id);
  }
  readSkips(clause, facts);
  if (ownServer(clause)) facts.provider = EXISTING_SERVER.id;
  // "use Jellyfin instead": the offered alternative was taken, the unknown name is answered.
  if (/\binstead\b|\balternative\b|\bgo with\b/i.test(clause)) {
    facts.unknown = facts.unknown.filter((u) => !alternativesFor(u).some((c) => facts.components.has(c.id)) && !named.length);
  }
  // Ports: Git over SSH of a product, the host's SSH, or a product's web port.
  // The SSH port of the person's own server ("deploy@host port 2222") is how we reach it, not a service's.
  const sshTargetPort = readSshTarget(clause)?.port;
  for (const m of clause.matchAll(/\bport\s+(\d{2,5})\b|(?<![\d.:])(?:on|at)\s+:(\d{2,5})\b/gi)) {
    const host = Number(m[1] ?? m[2]);
    if (host < 1 || host > 65535 || host === sshTargetPort) continue;
    // "port 8080 is used by a legacy java thing": what the server holds, for the inspection to find, not a port to publish on.
    if (PORT_HELD.test(clause.slice((m.index ?? 0) + m[0].length)) || HELD_BEFORE.test(clause.slice(0, m.index ?? 0))) continue;
    const ssh = /\bssh\b/i.test(clause);
    const target = productNear(named, m.index ?? 0);
    const gitSsh = target && PRODUCTS[target]!.services.some((s) => s.alwaysPublish?.some((p) => p.endsWith(':22')));
    if (ssh && !gitSsh) facts.sshPort = host;
    else if (!facts.custom.some((c) => c.port === host)) facts.ports.push({ host, ...(target ? { component: target } : {}), ...(ssh ? { ssh: true } : {}) });
  }
  // IP allowlists.
  if (ALLOW_WORDS.test(clause)) {
    for (const m of clause.matchAll(IPV4)) {
      const cidr = `${m[1]}${m[2] ?? '/32'}`;
      if (!facts.allowlist.includes(cidr)) facts.allowlist.push(cidr);
      if (/\bssh\b/i.test(clause) && !/\b(web|http|everything|all)\b/i.test(clause)) facts.allowScope = 'ssh';
    }
  }
  for (const [pattern, language] of APP_LANGUAGES) {
    const m = clause.match(pattern);
    if (m && !isNegated(clause, m.index ?? 0) && !workloadNamed) facts.appLanguage = language;
  }
  // Domains with the product the sentence names next to them.
  for (const d of domainsIn(clause)) {
    // "install cal.com": software named like a domain is the software, not where the stack is served.
    if (software.some((n) => n.toLowerCase() === d.host)) continue;
    const near = productNear(named, d.index);
    // Beside the person's own app, what the app uses (its search engine) is not what a domain serves: the app is.
    const product = near && USED_BY_KIND_WORDS.has(near) && kindAsked.length ? kindAsked[0] : near;
    // "use files.example.net instead": the stack's domain moves, its sub-domains with it.
    const old = primaryDomain(facts);
    if (!product && old && old !== d.host && DOMAIN_CHANGE.test(clause) && !facts.domains.some((x) => x.host === d.host)) {
      facts.domains = facts.domains.map((x) => (x.host === old ? { ...x, host: d.host } : x.host.endsWith(`.${old}`) ? { ...x, host: `${x.host.slice(0, -old.length)}${d.host}` } : x));
      if (!facts.domains.some((x) => x.host === d.host)) facts.domains.unshift({ host: d.host });
      facts.domain = d.host;
      continue;
    }
    const existing = facts.domains.find((x) => x.host === d.host);
    if (existing) {
      if (product) existing.component = product;
    } else facts.domains.push({ host: d.host, ...(product ? { component: product } : {}) });
  }
}

const POSSESSIVE = new Set(['my', 'our', 'mein', 'meinem', 'meinen', 'meiner', 'unserem', 'unseren', 'mon', 'ma', 'notre', 'mi', 'nuestro', 'mio', 'il mio']);
/** Words that name a hosting company (each provider file's `brands`). */
const PROVIDER_WORDS = new Set(Object.values(PROVIDERS).flatMap((p) => p.brands));
const SERVER_WORDS = new Set(['server', 'vps', 'box', 'instance', 'droplet', 'machine', 'host', 'dedi', 'root-server', 'rootserver', 'serveur', 'servidor']);

/**
 * "my Hetzner server", "auf meinem Hetzner-Server", "my droplet": a server the person already has, at
 * that provider: an existing server, not one to create. Read on the clause's words: a possessive, then
 * within two words a server word (a provider's name may sit between, or be joined to it by a hyphen).
 */
function ownServer(clause: string): boolean {
  const words: string[] = clause.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.some((w, i) => {
    if (!POSSESSIVE.has(w)) return false;
    const next = words.slice(i + 1, i + 4).filter((x) => !['own', 'existing', 'eigenen', 'eigener', 'current'].includes(x));
    return (SERVER_WORDS.has(next[0] ?? '') && next[0] !== 'host') || (PROVIDER_WORDS.has(next[0] ?? '') && SERVER_WORDS.has(next[1] ?? ''));
  });
}

/** Words that go on without every open unknown name ("continue", "that is all", "skip it"). */
const GO_ON = [['continue'], ['go', 'on'], ['carry', 'on'], ['proceed'], ['that', 'is', 'all'], ["that's", 'all'], ['thats', 'all'], ['nothing', 'else'], ['skip'], ['skip', 'it'], ['skip', 'them'], ['ignore', 'it'], ['leave', 'it', 'out'], ['weiter'], ['fertig']];
const SKIP_VERBS = new Set(['skip', 'drop', 'ignore', 'forget', 'omit']);

/**
 * "skip X", "leave X out", "forget X": the unknown name X is left out (and said so in the plan); a clause
 * that is only "continue", "that is all" or "skip" leaves out every open one. Read on the clause's words.
 */
function readSkips(clause: string, facts: Facts): void {
  const words: string[] = clause.toLowerCase().match(/[\p{L}\p{N}'.+-]+/gu) ?? [];
  const skip = (names: string[]): void => {
    for (const n of names) if (!facts.skipped.some((s) => s.toLowerCase() === n.toLowerCase())) facts.skipped.push(n);
    facts.unknown = facts.unknown.filter((u) => !names.some((n) => n.toLowerCase() === u.toLowerCase()));
  };
  const bare = words.filter((w) => !['please', 'ok', 'okay', 'just', 'and', 'then', 'yes', 'fine', 'thanks', 'it'].includes(w));
  if (GO_ON.some((phrase) => phrase.length === bare.length && phrase.every((w, i) => bare[i] === w)) || (bare.length <= 3 && GO_ON.some((p) => p.length > 1 && p.every((w, i) => bare[i] === w)))) {
    skip([...facts.unknown]);
    return;
  }
  const leaveOut = words.includes('leave') && words.includes('out');
  if (!words.some((w) => SKIP_VERBS.has(w)) && !leaveOut) return;
  skip(facts.unknown.filter((u) => words.includes(u.toLowerCase())));
}

/** Defaults for kinds of workload asked for without a product, unless one of that kind is named or ruled out. */
function resolveWants(facts: Facts): void {
  // A product of the default's kind already named fills the want (Kafka is the queue, Valkey the cache), and
  // so does one the catalogue lets fill that kind ("a Redis queue" is Redis); the default's own needs come
  // with it below (Grafana its Prometheus).
  for (const w of facts.wants) {
    const picks = defaultProducts(w, facts.excluded);
    const filled = [...facts.components].some((id) => PRODUCTS[id]?.category === picks[0]?.category || PRODUCTS[id]?.defaultFor[w] !== undefined);
    if (picks.length && !filled) for (const p of picks) facts.components.add(p.id);
  }
  // Products pull in what they need (Gitea its PostgreSQL), unless the person ruled that out.
  for (let changed = true; changed; ) {
    changed = false;
    for (const id of [...facts.components]) {
      // A need is met by any of its choices the stack has (Nextcloud with MariaDB needs no PostgreSQL).
      for (const choices of PRODUCTS[id]?.needs ?? []) {
        if (choices.some((c) => facts.components.has(c) || facts.heldOut.has(c))) continue;
        const dep = choices.find((c) => !facts.excluded.has(c));
        if (dep) {
          facts.components.add(dep);
          changed = true;
        }
      }
    }
  }
}

/**
 * Reads facts from texts in order (the person's messages, or a requirements document's sections).
 * A later text may add, remove or replace what an earlier one said.
 */
export function extractFacts(texts: string[], start: Facts = emptyFacts(), options: ExtractOptions = {}): Facts {
  const facts = cloneFacts(start);
  const pending: Pending = { place: undefined };
  for (const said of texts) {
    // Where the backups go is read first and its words blanked: the backup host is not the stack's domain or server.
    // A document's own line on backups names the backup host: never the stack's server or domain.
    const backup: BackupWords = options.document ? { rest: said.replace(BACKUP_LINES, (line) => ' '.repeat(line.length)), problems: [] } : readBackupWords(said);
    const text = backup.rest;
    if (backup.destination !== undefined) facts.backup = withDestination(facts.backup, backup.destination);
    if (backup.destination !== undefined || backup.problems.length) facts.backupProblems = [...backup.problems];
    if (!options.document) {
      for (const clause of clauses(text)) readClause(clause, facts);
      facts.language ??= detectLanguage(text);
    } else {
      for (const clause of clauses(text)) {
        for (const rule of RULES.filter((r) => r.doc)) {
          const global = new RegExp(rule.pattern.source, `${rule.pattern.flags}g`);
          for (const m of clause.matchAll(global)) rule.apply(facts, !isNegated(clause, m.index ?? 0), m[0]);
        }
      }
    }
    readScalars(text, facts, pending);
    const target = readSshTarget(text) ?? readSpokenTarget(text);
    if (target) {
      facts.sshTarget = target;
      facts.provider = EXISTING_SERVER.id;
    }
  }
  if (pending.place) facts.region = regionOf(facts.provider, pending.place);
  if (!options.document) resolveWants(facts);
  facts.domain = primaryDomain(facts);
  return facts;
}

const BACKUP_LINES = new RegExp(`^(?:- )?${BACKUP_LINE_PREFIX}.*$`, 'gm');

/** The backup settings with a destination chosen (a restic repository URL), or none (`null`: kept on the server). */
function withDestination(current: Backup | undefined, destination: string | null): Backup {
  const { destination: _old, ...rest } = current ?? emptyStackModel().backup;
  return { ...rest, skip: [...rest.skip], ...(destination ? { destination } : {}) };
}

/** The domain the stack is served at: the one named for no product in particular, else the first named. */
function primaryDomain(facts: Facts): string | undefined {
  if (facts.noDomain) return undefined;
  return facts.domains.find((d) => !d.component)?.host ?? facts.domains[0]?.host ?? facts.domain;
}

/** The reverse proxy the stack gets: the named one, else Caddy when a proxy, TLS or a domain is wanted. */
export function chosenProxy(facts: Facts): ProxyId | undefined {
  if (facts.proxy) return facts.proxy;
  if (facts.genericProxy || facts.tls || facts.domain) return defaultProducts('proxy', facts.excluded)[0]?.id;
  return undefined;
}
