import type { Exposure, StackModel } from '../../../shared/stackModel';
import { replacementOf } from './modelOps';
import { CATALOGUE_VIEW } from './stackModelBridge';

/**
 * What a correction to a plan changed, read from the stack models before and after (never from the
 * words): the architect and the implementation planner say it instead of repeating their summary, and
 * say plainly when the words changed nothing they can plan.
 */

const exposureText = (e: Exposure): string =>
  e.via === 'proxy' ? (e.domain ? `${e.domain}${e.tls ? ' (HTTPS)' : ''}` : "the server's address") : `${e.bind === 'loopback' ? '127.0.0.1:' : 'port '}${e.hostPort}`;

function exposuresOf(m: StackModel, name: string): string[] {
  return m.exposures.filter((e) => e.component === name).map(exposureText).sort();
}

const sourceText = (m: StackModel, name: string): string => {
  const c = m.components.find((x) => x.name === name)!;
  return c.source.kind === 'image' ? `${name} (${c.source.image})` : name;
};

const productOf = (m: StackModel, name: string): string | undefined => {
  const c = m.components.find((x) => x.name === name);
  return c?.source.kind === 'catalogue' ? c.source.id : undefined;
};
const labelOf = (id: string): string => CATALOGUE_VIEW[id]?.label ?? id;

/**
 * "put postgres (PostgreSQL 16) in place of mariadb: nextcloud needs MariaDB, PostgreSQL or MySQL": a need
 * refilled, read from the links (who reached the removed component reaches the new one), for any product.
 */
function replacementText(before: StackModel, after: StackModel, gone: string, by: string, users: string[]): string {
  const goneId = productOf(before, gone);
  const byId = productOf(after, by);
  const needs = users.flatMap((u) => {
    const need = CATALOGUE_VIEW[productOf(after, u) ?? '']?.needs.find((n) => (!goneId || n.includes(goneId)) && (!byId || n.includes(byId)));
    return need ? [`${u} needs ${need.length > 1 ? `one of ${need.map(labelOf).join(', ')}` : labelOf(need[0]!)}`] : [];
  });
  return `put ${sourceText(after, by)}${byId ? ` (${labelOf(byId)})` : ''} in place of ${gone}${needs.length ? `: ${needs.join('; ')}` : ` for ${users.join(', ')}`}`;
}

/**
 * The changes between two models, one line each ("removed redis", "nextcloud: served at files.example.net");
 * a component put in place of a removed one is named as such, and what is left out says why.
 */
export function modelChanges(before: StackModel, after: StackModel): string[] {
  const out: string[] = [];
  const names = (m: StackModel): Set<string> => new Set(m.components.map((c) => c.name));
  const was = names(before);
  const now = names(after);
  const placed = new Set<string>();
  for (const n of was) {
    if (now.has(n)) continue;
    const r = replacementOf(before, after, n);
    if (!r || placed.has(r.by)) continue;
    out.push(replacementText(before, after, n, r.by, r.for));
    placed.add(r.by).add(n);
  }
  for (const n of now) if (!was.has(n) && !placed.has(n)) out.push(`added ${sourceText(after, n)}`);
  for (const n of was) if (!now.has(n) && !placed.has(n)) out.push(`removed ${sourceText(before, n)}`);
  const leftOut = after.leftOut.filter((l) => !before.leftOut.some((x) => x.name === l.name && x.reason === l.reason));
  for (const l of leftOut) out.push(`left out ${l.name}: ${l.reason}`);
  // A need the stack met before and meets no more (the person removed what filled it): said, not hidden.
  const unmet = (m: StackModel, user: string): string[][] => {
    const have = new Set(m.components.map((c) => productOf(m, c.name)));
    return (CATALOGUE_VIEW[productOf(m, user) ?? '']?.needs ?? []).filter((need) => !need.some((x) => have.has(x)));
  };
  for (const c of after.components) {
    if (!was.has(c.name)) continue;
    const unmetBefore = new Set(unmet(before, c.name).map((n) => n.join()));
    for (const need of unmet(after, c.name)) {
      if (unmetBefore.has(need.join()) || leftOut.some((l) => need.includes(l.name))) continue;
      out.push(`${c.name} goes without ${need.map(labelOf).join(' or ')}, which it needs: say "add ${labelOf(need[0]!).replace(/\s+v?[\d.]+.*$/, '')}" to put it back`);
    }
  }
  for (const c of after.components) {
    if (!was.has(c.name)) continue;
    const old = before.components.find((x) => x.name === c.name)!;
    if (JSON.stringify(old.source) !== JSON.stringify(c.source)) out.push(`${c.name}: now ${c.source.kind === 'image' ? c.source.image : c.source.image ?? c.source.id}`);
    const [a, b] = [exposuresOf(before, c.name), exposuresOf(after, c.name)];
    if (a.join() !== b.join()) out.push(`${c.name}: ${b.length ? `reached at ${b.join(', ')}` : 'no longer published'}${a.length ? ` (was ${a.join(', ')})` : ''}`);
    if (Boolean(old.keepPrivate) !== Boolean(c.keepPrivate)) out.push(`${c.name}: ${c.keepPrivate ? 'kept private' : 'may be public'}`);
    if (Boolean(old.gpu) !== Boolean(c.gpu)) out.push(`${c.name}: ${c.gpu ? "given the host's GPUs" : 'without GPUs'}`);
  }
  if (JSON.stringify(before.target) !== JSON.stringify(after.target)) {
    const t = after.target;
    out.push(`runs on ${!t ? 'a server still to be chosen' : t.kind === 'existing' ? `${t.user}@${t.host} (SSH port ${t.port})` : `a new ${t.provider} machine${t.region ? ` in ${t.region}` : ''}${t.size ? ` (${t.size})` : ''}`}`);
  }
  if (JSON.stringify(before.sizing) !== JSON.stringify(after.sizing)) out.push(`sizing: ${Object.entries(after.sizing).map(([k, v]) => `${k} ${String(v)}`).join(', ') || 'from the stack'}`);
  if (JSON.stringify(before.host) !== JSON.stringify(after.host)) out.push('host settings (firewall, fail2ban, updates, SSH port, allowed sources) changed');
  return out;
}

/**
 * Asks a single-host Compose plan cannot take, each with why. Data, not branches: a row per kind of ask;
 * anything else that changes nothing gets the general answer.
 */
const OUT_OF_REACH: Array<{ words: RegExp; why: string }> = [
  { words: /\b(kubernetes|k8s|k3s|helm|swarm|nomad)\b/i, why: 'these plans run one Docker Compose stack on one server; an orchestrator is not something I can plan' },
  { words: /\b(second|two|2|multiple|several|more) (servers?|hosts?|machines?|nodes?|replicas?)\b|\bload[- ]balanc/i, why: 'these plans run on one server; spreading the stack over several is not something I can plan' },
  { words: /\b(terraform|ansible|pulumi|cloudformation)\b/i, why: 'the steps are shell commands the execution stage runs and shows you; they are not written as another tool\'s files' },
  { words: /\b(managed|rds|cloud sql|elasticache|aurora)\b/i, why: "a provider's managed service is outside the server this plan builds; the database runs as a container beside the app" },
];

/** The plain answer to words that changed nothing in the plan. */
export function unchangedText(said: string, plan: 'architecture' | 'implementation'): string {
  const reasons = OUT_OF_REACH.filter((r) => r.words.test(said)).map((r) => r.why);
  const can = 'add, remove or replace a component (a catalogue product or your image), change a domain or a port, keep a component private or make it public, change the server or its size';
  return [
    reasons.length
      ? `I can't make that change: ${reasons.join('; ')}.`
      : `I found nothing to change in the ${plan === 'architecture' ? 'architecture' : 'steps'} from that, so the plan is as it was.`,
    `What I can change here: ${can}${plan === 'implementation' ? "; a single step's commands are changed in the execution stage (Change with the agent)" : ''}. Say it in those terms, for example "remove Redis", "keep Adminer private" or "serve Grafana at grafana.example.com".`,
  ].join(' ');
}
