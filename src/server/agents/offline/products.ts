import { PRODUCTS, type Product } from './knowledge';

/**
 * How a conversation names products: the catalogue's aliases, images the person names (used as
 * given), and names of software the catalogue does not hold (said back by name, never swapped).
 */

export interface ProductRule {
  id: string;
  pattern: RegExp;
  /** Its words name a kind of workload (the catalogue's `kindWords`: a website, my API), not the product. */
  kindWords: boolean;
}

/** What a product answers to: its names and the descriptions people give of it. */
const wordsOf = (c: Product): string[] => [...c.aliases, ...c.describedAs];
/**
 * Where a name may start and end: not inside a word, a compound or a host name — "wiki.example.com" or
 * "grafana.example.com" is where something is served, not a request for Wiki.js or Grafana.
 */
const NAME_START = '(?<![\\w-]|[\\w-]\\.)';
const NAME_END = '(?![\\w-]|\\.[\\w-])';
const aliasPattern = (c: Product): RegExp => new RegExp(`${NAME_START}(?:${wordsOf(c).join('|')})${NAME_END}`, 'gi');
const rule = (c: Product): ProductRule => ({ id: c.id, pattern: aliasPattern(c), kindWords: c.kindWords });

/** Products matched from their aliases as components of the stack. */
export const PRODUCT_RULES: ProductRule[] = Object.values(PRODUCTS).filter((c) => !c.proxy).map(rule);

/** Reverse proxies matched from their aliases: named, one becomes the stack's proxy rather than a component. */
export const PROXY_RULES: ProductRule[] = Object.values(PRODUCTS).filter((c) => c.proxy).map(rule);

/**
 * Products a kind of workload uses (the `uses` of products with kind words: an app's databases, caches,
 * queues and search engines): named beside "our Ruby app", they leave the words the app's.
 */
export const USED_BY_KIND_WORDS: ReadonlySet<string> = new Set(Object.values(PRODUCTS).filter((c) => c.kindWords).flatMap((c) => c.services.flatMap((s) => Object.keys(s.uses ?? {}))));

/** Any catalogued product's name (proxies included), to tell known names from unknown ones. */
const ANY_ALIAS = new RegExp(`^(?:${Object.values(PRODUCTS).flatMap(wordsOf).join('|')})$`, 'i');
const ANY_ALIAS_GLOBAL = new RegExp(`${NAME_START}(?:${Object.values(PRODUCTS).flatMap(wordsOf).join('|')})${NAME_END}`, 'gi');

/** Catalogued products offered for a name the catalogue does not hold. */
export function alternativesFor(name: string): Product[] {
  const n = name.toLowerCase();
  return Object.values(PRODUCTS).filter((c) => c.alternativeTo.some((a) => a.toLowerCase() === n));
}

const ALTERNATIVE_NAMES = Object.values(PRODUCTS).flatMap((c) => c.alternativeTo);

// ---------------------------------------------------------------------------------------------------
// Images named by the person
// ---------------------------------------------------------------------------------------------------

export interface NamedImage {
  image: string;
  /** The repository without registry and tag, e.g. `uptime-kuma` for `louislam/uptime-kuma:2`. */
  base: string;
}

const IMAGE_RE = /(?<![\w/.:@-])((?:[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?\/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*):([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})(?![\w:/@])/g;
const CATALOGUED_REPOS = new Set(
  Object.values(PRODUCTS).flatMap((c) => c.services.filter((s) => s.image !== 'build').map((s) => s.image.slice(0, s.image.lastIndexOf(':')))),
);

/** Image references in a text: `repo/name:tag`, `registry.example/x/y:tag`, or `name:tag` for a catalogued image. */
export function findImages(text: string): NamedImage[] {
  const out: NamedImage[] = [];
  for (const m of text.matchAll(IMAGE_RE)) {
    const repo = m[1]!;
    const tag = m[2]!;
    if (/^\d+$/.test(repo)) continue;
    // Without a registry path (`postgres:15`) only a catalogued image repository counts, with a versioned tag.
    if (!repo.includes('/') && !(CATALOGUED_REPOS.has(repo) && /\d/.test(tag))) continue;
    out.push({ image: `${repo}:${tag}`, base: repo.split('/').pop()! });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Software the catalogue does not hold
// ---------------------------------------------------------------------------------------------------

/** Words after "deploy/install/run/host" that are not product names (among them the words a person describes an image with, as the planner asks: "image X port 8080, data in /data"). */
const COMMON = new Set(
  `a an the my our your their its it this that these those some any all both everything something anything them me us
   on in at for to from with without behind and or plus but also as of by via into onto
   docker compose container containers server servers vps machine host instance droplet box node cluster
   app apps application applications api apis service services backend frontend website site sites webpage page blog stack
   database databases db cache queue proxy reverse web static landing simple basic small tiny minimal new own existing
   it's i'd i'll i'm please just only maybe also then too well here there
   monitoring logging logs metrics backups backup alerts alerting dashboards dashboard analytics search storage files file
   ssl tls https http certificate certificates firewall security updates hardening
   linux ubuntu debian centos rocky alma windows production staging dev development test testing
   wordpress-like something-like a-few few several one two three four five
   somewhere anywhere everywhere ssh
   port ports listening data volume volumes mount env environment variable variables memory ram cpu cpus disk
   image images tag version latest registry automation workflow workflows tool tools platform software solution system thing
   setup set-up installation deployment docker-compose compose self-host self-hosting selfhost
   self-hosted selfhosted hosted managed open-source opensource private public internal`.split(/\s+/).filter(Boolean),
);

// A lookahead: the words after one verb stay readable after the next ("want a setup with Kavita").
// A word may end the text ("deploy jitsi-meet"); `@` and `/` keep scoped packages and image paths whole.
const VERBS = /\b(?:deploy|install|run|host|self-host|selfhost|set ?up|spin up|add|use|want|need|get|with)\s+(?=((?:[\w.+@/:-]+(?:\s*(?:,|and|&|plus)\s*|\s+|$)){1,6}))/gi;
const STOP = /^(on|in|at|for|to|from|with|without|behind|using|via|so|that|which|where|because|as)$/i;

/** Provider, place and language words: named, but not software to deploy. */
const NOT_SOFTWARE = /^(aws|ec2|amazon|gcp|google|azure|digitalocean|digital|ocean|hetzner|linode|vultr|ovh|contabo|scaleway|node\.?js|python|ruby|php|java|go|golang|rust|typescript|javascript|django|flask|fastapi|rails|laravel|spring|express|next\.?js|nest\.?js|react|vue|angular|kotlin|dotnet|\.net|frankfurt|falkenstein|nuremberg|helsinki|london|paris|amsterdam|europe|us|eu|usa|germany|finland|france|it|ufw|fail2ban|unattended-upgrades|cron|systemd|git|github|gitlab-ci)$/i;

/**
 * Names of software in a clause that the catalogue does not hold: the objects of "deploy/install/run…"
 * that are no common word and no catalogued name, plus names catalogued products stand in for
 * ("Plex", "Google Analytics"). Lower-case objects count only after a deploy verb that cannot mean
 * anything else.
 */
export function unknownNames(text: string): string[] {
  const out = new Set<string>();
  const imagesNamed = new Set(findImages(text).map((i) => i.image));
  // Catalogued names are known whatever their words ("S3-compatible storage"): they are taken out first.
  const clause = text.replace(ANY_ALIAS_GLOBAL, (m) => ' '.repeat(m.length));
  for (const alt of ALTERNATIVE_NAMES) {
    const m = clause.match(new RegExp(`${NAME_START}${alt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${NAME_END}`, 'i'));
    if (m) out.add(m[0]);
  }
  for (const m of clause.matchAll(VERBS)) {
    const verb = m[0].split(/\s+/)[0]!.toLowerCase();
    const strict = ['want', 'need', 'use', 'get', 'add', 'with'].includes(verb);
    // The words after the verb, with the separator that follows each (a name is followed by no noun it modifies).
    const start = (m.index ?? 0) + m[0].length;
    const parts = [...m[1]!.matchAll(/([^\s,&]+)(\s*(?:,|\band\b|&|\bplus\b)\s*|\s+|$)/g)].map((x) => ({ raw: x[1]!, sep: x[2]!, at: start + (x.index ?? 0) }));
    for (const [i, { raw, sep, at }] of parts.entries()) {
      const word = raw.replace(/[.,;:!?)]+$/, '');
      if (STOP.test(word)) break;
      // A joiner standing alone ("opensearch + opensearch dashboards") names nothing: a name has a letter or digit.
      if (!/[a-z0-9]/i.test(word) || COMMON.has(word.toLowerCase()) || NOT_SOFTWARE.test(word) || ANY_ALIAS.test(word) || /^\d/.test(word)) continue;
      if (PRODUCT_RULES.some((r) => new RegExp(r.pattern.source, 'i').test(word))) continue;
      // The word after it in the person's text (a catalogued one too: "high-availability n8n" is a modifier), when only spaces part them.
      const next = /^\s+$/.test(sep) && raw === word ? text.slice(at + raw.length).match(/^\s+([^\s,&]+)/)?.[1]?.replace(/[.,;:!?)]+$/, '') : undefined;
      const shape = nameShape(word, next, prev(parts, i));
      if (shape === 'not') continue;
      // An image with a tag is run as given (the facts make it a component of its own); one without is named back.
      if (shape === 'path' && [...imagesNamed].some((image) => image.startsWith(`${word}:`) || image === word)) continue;
      if (strict && shape === 'word') continue;
      if (!strict && shape === 'word' && word.length < 3) continue;
      out.add(word);
    }
  }
  for (const name of slotNames(text, clause)) if (![...out].some((o) => o.toLowerCase() === name.split(' ')[0]!.toLowerCase())) out.add(name);
  return [...out];
}

/** The word before the i-th of the words after a verb ('' for the first). */
const prev = (parts: Array<{ raw: string }>, i: number): string => (i ? parts[i - 1]!.raw.toLowerCase() : '');

/** Words before a domain that say it is an address: "my domain example.com", "at example.com". */
const ADDRESS_BEFORE = /^(domain|domains|address|url|hostname|site|at|on|to|via)$/;

/**
 * What the shape of a word after a deploy verb says it is, read from its characters and the word after it:
 * - `path`: a scoped package (`@org/x`) or an image path with a registry (`ghcr.io/org/x`);
 * - `name`: a capital (`Plex`), a digit (`immich2`), a plus, a dotted name of two labels (`cal.com`: a
 *   product's name, unless an address word comes before it or "as" after it), or a lower-case compound
 *   standing as a noun (`wg-easy on my VPS`, `wg-easy and n8n`), where a compound before a noun is an
 *   ordinary modifier (`real-time sync`, `off-site backups`);
 * - `word`: any other lower-case word (a name only after a verb that cannot mean anything else);
 * - `not`: an address, a command-line fragment or a time, never software.
 */
export function nameShape(word: string, next: string | undefined, before = ''): 'path' | 'name' | 'word' | 'not' {
  // A joiner alone ("grafana + prometheus") has no letter or digit: it joins names, it is none.
  if (!/[\p{L}\p{N}]/u.test(word)) return 'not';
  if (/^@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*$/i.test(word)) return 'path';
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/[a-z0-9][\w.-]*)+(:[\w.-]+)?$/.test(word)) return 'path';
  if (/[:/@]/.test(word)) return 'not';
  const labels = word.split('.');
  if (labels.length > 1) {
    // A sub-domain (files.example.net) or a domain given as an address is where the stack is served.
    if (labels.length > 2 || !/^[a-z]{2,24}$/i.test(labels[1]!) || ADDRESS_BEFORE.test(before) || /^as$/i.test(next ?? '')) return 'not';
    return 'name';
  }
  if (/^[A-Z]/.test(word) || /[a-z][A-Z]|\d|\+/.test(word)) return 'name';
  if (/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(word)) {
    // A compound before a joiner stands as a noun too: "kafka + kafka-ui + our consumer", "mongo-express and redis".
    const head = next === undefined || STOP.test(next) || JOINER.test(next) || /^(please|server|instance|container|for|as)$/i.test(next);
    return head ? 'name' : 'not';
  }
  return 'word';
}

/**
 * Words that say what kind of software the name before them is ("outline wiki", "zabbix server",
 * "immich for family photos"); the ones kept with the name are part of how it is called ("Firefly III").
 */
const KIND_AFTER = /^(for|as|on|server|wiki|forum|dashboard|instance|exporter|online|manager|ce|ee|ii|iii|cluster|registry|cms|ci|runner|broker|proxy)$/i;
/** Words that join one name to the next in a list of software: "opensearch + opensearch dashboards". */
const JOINER = /^(\+|&|and|plus)$/i;
/** A version written after a name ("postgress 15", "keydb 6.2"): the name's, so the word after it says what kind of name it is. */
const VERSION = /^v?\d+(\.\d+)*(\.x)?$/i;
const KEPT_WITH_NAME = /^(exporter|online|ii|iii)$/i;
/** Said before a name of software: "self-hosted gitlab". */
const BEFORE = /^(self-hosted|selfhosted|self|hosted)$/i;
/** Ordinary words that also open a sentence ("light load", "sounds good"): never a name in a slot. */
const OPENERS = new Set(
  `hi hello hey thanks thank yes no ok okay sure sounds go continue skip make keep put publish remove drop replace actually lets let's can could would should
   deploy install run host setup set spin add use get create launch start bring stand provision configure build
   what how why when about around roughly light low high heavy medium moderate just mostly everything nothing germany please i we you they need want
   daily nightly weekly hourly automatic automated regular full more less extra separate dedicated same another other family team personal company home office
   default defaults rest sensible whatever recommended standard usual normal typical fine good great done
   space room memory ram disk cpu cpus traffic load users access email mail notifications port ports domain domains dns region location data`.split(/\s+/).filter(Boolean),
);

/** The words a request may open with before the software it names: a verb of deploying, "please", an article. */
const LEADING = /^(please|deploy|install|run|host|set|setup|spin|up|create|launch|start|bring|stand|provision|a|an|the|my|our)$/i;

/**
 * Lower-case names in the places a request puts software: opening a clause before a kind word ("immich for
 * family photos", "outline wiki"), after an article before one ("a discourse forum"), after "self-hosted",
 * or joined to a catalogued product ("n8n and baserow", "jellyfin plus jellyseerr") when no ordinary noun
 * follows (in "postgres and daily backups" the word is a modifier). `blanked` has the catalogued names
 * blanked out, at the same positions as `text`.
 */
function slotNames(text: string, blanked: string): string[] {
  const tokens = [...text.matchAll(/[\w.+'-]+|[&+]/g)].map((m) => ({ word: m[0].replace(/[.,;:!?)]+$/, ''), index: m.index ?? 0 }));
  const aliasBefore = (index: number): boolean => ANY_ALIAS_GLOBAL_END.test(text.slice(0, index).trimEnd());
  // Part of a catalogued name ("wiki" of Wiki.js): blanked there.
  const catalogued = (t: { word: string; index: number }): boolean => !blanked.slice(t.index, t.index + t.word.length).trim();
  const ordinary = (w: string): boolean =>
    !w || w.length < 3 || COMMON.has(w.toLowerCase()) || OPENERS.has(w.toLowerCase()) || STOP.test(w) || NOT_SOFTWARE.test(w) || ANY_ALIAS.test(w) || !/^[a-z][a-z0-9.+-]*$/i.test(w) || /\d{2,}/.test(w) || /\.(com|net|org|io|dev|de)$/i.test(w);
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (catalogued(t) || COMMON.has(t.word.toLowerCase()) || OPENERS.has(t.word.toLowerCase()) || NOT_SOFTWARE.test(t.word) || ANY_ALIAS.test(t.word)) return;
    // A name-shaped word opening the request ("wg-easy (wireguard vpn) on my vps", "cal.com scheduling on aws")
    // is software whatever follows: a dash or a dot inside a word is how names are typed, not sentences.
    const spaced = /^\s+$/.test(text.slice(t.index + t.word.length, tokens[i + 1]?.index ?? text.length));
    // A dotted word alone ("example.com", the answer to which domain) or before "for"/"at" is an address.
    const next = spaced ? tokens[i + 1]?.word : undefined;
    const address = t.word.includes('.') && (!next || STOP.test(next));
    // Digits are left to the other places: an opening "nbg1" or "eu-central-1" is a region, not software.
    if (i === 0 && !address && /[-.]/.test(t.word) && !/\d/.test(t.word) && nameShape(t.word, next) === 'name') {
      out.push(t.word);
      return;
    }
    if (ordinary(t.word)) return;
    // A version after the name belongs to it: the word after the version says what kind of name it is.
    const skip = VERSION.test(tokens[i + 1]?.word ?? '') ? 1 : 0;
    const following = tokens[i + 1 + skip]?.word ?? '';
    // A compound before a noun modifies it ("self-hosted low-cost setup"): no name.
    if (nameShape(t.word, tokens[i + 1 + skip]?.word) === 'not') return;
    const after = tokens[i + 2 + skip]?.word ?? '';
    const prev = tokens[i - 1]?.word ?? '';
    // Only openers and articles before it ("Deploy Outline wiki", "please install a discourse forum"): it opens the request.
    const leading = tokens.slice(0, i).every((x) => LEADING.test(x.word));
    const opening = leading || /[,;:]\s*$/.test(blanked.slice(0, t.index));
    const named = KEPT_WITH_NAME.test(following) ? `${t.word} ${following}` : t.word;
    const kind = KIND_AFTER.test(following) || (!COMMON.has(following.toLowerCase()) && /^(manager|server|app|tool)$/i.test(after));
    // A request opening on a name in a list ("opensearch + opensearch dashboards on my vps") names software.
    const listed = leading && JOINER.test(following);
    // A name of two words opening the request before a kind word: "hashicorp vault for secrets".
    const twoWords = leading && !skip && !ordinary(following) && !catalogued(tokens[i + 1] ?? t) && KIND_AFTER.test(after);
    if (twoWords) out.push(`${t.word} ${following}`);
    else if (listed) out.push(t.word);
    else if ((opening || /^(a|an)$/i.test(prev)) && kind && !(/^(for|as|on)$/i.test(following) && !opening)) out.push(named);
    else if (BEFORE.test(prev) && !(prev.toLowerCase() === 'self' && t.word.toLowerCase() !== 'hosted')) out.push(named);
    else if (/^(and|plus|&|\+)$/i.test(prev) && aliasBefore(tokens[i - 1]!.index) && !(COMMON.has(following.toLowerCase()) && !STOP.test(following) && !/^(and|or|plus)$/i.test(following))) out.push(named);
    else if (prev.toLowerCase() === 'with' && /^(as|exporter)$/i.test(following)) out.push(named);
  });
  return out.filter((n) => !/^hosted$/i.test(n));
}

/** A catalogued name at the end of a text. */
const ANY_ALIAS_GLOBAL_END = new RegExp(`${NAME_START}(?:${Object.values(PRODUCTS).flatMap(wordsOf).join('|')})$`, 'i');

// ---------------------------------------------------------------------------------------------------
// The person's language
// ---------------------------------------------------------------------------------------------------

const LANGUAGES: Array<[string, RegExp]> = [
  ['German', /\b(ich|und|nicht|mit|für|einen|eine|brauche|möchte|bitte|auf|der|die|das|ist)\b/gi],
  ['French', /\b(je|et|pas|avec|pour|une|besoin|veux|voudrais|s'il|serveur|sur|le|la|les|est)\b/gi],
  ['Spanish', /\b(yo|necesito|quiero|con|para|una|por favor|servidor|el|los|las|es|y)\b/gi],
  ['Italian', /\b(io|voglio|vorrei|bisogno|con|per|una|il|gli|che|è|sul)\b/gi],
  ['Portuguese', /\b(eu|preciso|quero|com|para|uma|servidor|não|é|o|os|as|em)\b/gi],
  ['Dutch', /\b(ik|wil|graag|met|voor|een|niet|het|de|en|op)\b/gi],
];
const ENGLISH = /\b(i|and|not|with|for|a|the|need|want|please|on|is|my|to|of)\b/gi;

/** The language a message is written in, when it is not English (undefined for English or too little text). */
export function detectLanguage(text: string): string | undefined {
  if (/[\u0400-\u04FF]{3,}/.test(text)) return 'Russian or another Cyrillic-script language';
  if (/[\u3040-\u30FF]/.test(text)) return 'Japanese';
  if (/[\u4E00-\u9FFF]{2,}/.test(text)) return 'Chinese';
  if (/[\uAC00-\uD7AF]{2,}/.test(text)) return 'Korean';
  if (/[\u0600-\u06FF]{3,}/.test(text)) return 'Arabic';
  const english = (text.match(ENGLISH) ?? []).length;
  let best: [string, number] | undefined;
  for (const [name, re] of LANGUAGES) {
    const n = (text.match(re) ?? []).length;
    if (n >= 3 && n > english && (!best || n > best[1])) best = [name, n];
  }
  return best?.[0];
}
