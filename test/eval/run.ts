import YAML from 'yaml';
import { readStackModel } from '../../src/server/agents/offline/documents';
import { readCompose } from '../../src/server/agents/verifier/composeModel';
import { verifierFactsOf } from '../../src/server/agents/verifier/stackModelFacts';
import { verifyPlans, type Finding } from '../../src/server/agents/verifier/verifyPlan';
import { converse, plans } from '../server/helpers/plannerConversation';
import { EVAL_REQUESTS, type EvalRequest } from './requests';
import { PRODUCTS } from '../../src/server/agents/offline/knowledge';
import { alternativesFor } from '../../src/server/agents/offline/products';

/**
 * Runs the evaluation set through the offline planner as the app drives it (requirements, then the
 * architecture and the implementation plan from the confirmed requirements) and the plan verifier, and
 * prints, per request and in total: ready, components as asked, verifier errors, unknowns named back.
 *
 *   npx tsx test/eval/run.ts            every request
 *   npx tsx test/eval/run.ts n8n elk    the requests whose id contains one of the words
 *   npx tsx test/eval/run.ts --findings also every finding of every plan
 */

interface Outcome {
  request: EvalRequest;
  ready: boolean;
  services: string[];
  /** What was asked is what was planned (see `asked`), with the reasons it is not. */
  asked: boolean;
  misses: string[];
  unknownNamed: boolean | undefined;
  findings: Finding[];
  failure?: string;
}

const DEFAULTS = 'Go with sensible defaults for everything else.';

/** Services published on an address other than loopback. */
function publicServices(compose: string): Set<string> {
  const out = new Set<string>();
  for (const s of readCompose(compose).services) if (s.ports.some((p) => !/^(127\.|::1|localhost)/.test(p.hostIp))) out.add(s.name);
  return out;
}

async function run(request: EvalRequest): Promise<Outcome> {
  const c = converse([...request.says, DEFAULTS]);
  const unknownNamed = request.unknown?.length ? request.unknown.every((u) => c.replies.some((r) => r.toLowerCase().includes(`i don't know ${u.toLowerCase()}`))) : undefined;
  // An unknown name is asked about once; the person's plain answer after it ("go with sensible defaults") goes on without it.
  const misses: string[] = [];
  if (!c.ready) misses.push(request.unknown?.length ? 'not ready after the unknown was asked about once' : 'requirements not ready');
  if (unknownNamed === false) misses.push(`not named back: ${request.unknown!.join(', ')}`);
  if (!c.ready) return { request, ready: false, services: [], asked: misses.length === 0, misses, unknownNamed, findings: [] };
  // What an inspection of the existing server would find: the planner adapts to it, the verifier checks it.
  const serverFacts = request.portsInUse ? { inspectedAt: new Date().toISOString(), portsInUse: request.portsInUse.map((port) => ({ port, protocol: 'tcp' as const, holder: 'another service' })), containers: [], composeProjects: [] } : undefined;
  const p = plans(c.document, serverFacts);
  const services = p.compose ? Object.keys((YAML.parse(p.compose) as { services: object }).services).sort() : [];
  for (const m of request.must) {
    const options = Array.isArray(m) ? m : [m];
    if (!options.some((o) => services.includes(o))) misses.push(`missing ${options.join(' or ')}`);
  }
  for (const n of request.never ?? []) if (services.includes(n)) misses.push(`has ${n}`);
  // No stand-in for software the catalogue does not hold: no catalogued alternative to it and no placeholder page, unless asked for.
  const asked = new Set(request.must.flat());
  for (const u of request.unknown ?? []) {
    const standIns = [...alternativesFor(u).flatMap((p) => p.services.map((x) => x.name)), ...PRODUCTS.web!.services.map((x) => x.name)].filter((x) => services.includes(x) && !asked.has(x));
    if (standIns.length) misses.push(`stand-in for ${u}: ${[...new Set(standIns)].join(', ')}`);
  }
  const published = p.compose ? publicServices(p.compose) : new Set<string>();
  for (const s of request.private ?? []) if (published.has(s)) misses.push(`${s} published`);
  if (request.tls && !/^- https:\/\//m.test(p.architecture)) misses.push('no HTTPS');
  const model = readStackModel(p.implementation) ?? readStackModel(p.architecture);
  const facts = verifierFactsOf(model);
  const target = request.portsInUse ? { ...facts.target, portsInUse: request.portsInUse.map((port) => ({ port, protocol: 'tcp' as const, holder: 'another service' })) } : facts.target;
  const findings = await verifyPlans({ architecture: p.architecture, implementation: p.implementation, secrets: c.secrets.map((s) => s.name), ...facts, ...(target ? { target } : {}) });
  return { request, ready: true, services, asked: misses.length === 0, misses, unknownNamed, findings };
}

const pct = (n: number, of: number): string => `${n}/${of} (${of ? Math.round((100 * n) / of) : 0}%)`;
const countBy = (items: string[]): string =>
  Object.entries(items.reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {}))
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const showFindings = args.includes('--findings');
  const words = args.filter((a) => !a.startsWith('--'));
  const requests = words.length ? EVAL_REQUESTS.filter((r) => words.some((w) => r.id.includes(w))) : EVAL_REQUESTS;
  const outcomes: Outcome[] = [];
  for (const request of requests) {
    let outcome: Outcome;
    try {
      outcome = await run(request);
    } catch (err) {
      outcome = { request, ready: false, services: [], asked: false, misses: ['planner threw'], unknownNamed: undefined, findings: [], failure: (err as Error).message.split('\n')[0] };
    }
    outcomes.push(outcome);
    const errors = outcome.findings.filter((f) => f.severity === 'error');
    console.log(
      [
        outcome.asked ? 'ok  ' : 'MISS',
        outcome.request.id.padEnd(28),
        `ready=${outcome.ready ? 'y' : 'n'}`,
        `errors=${String(errors.length).padStart(2)}`,
        `warnings=${String(outcome.findings.length - errors.length).padStart(2)}`,
        outcome.misses.length ? `(${outcome.misses.join('; ')})` : '',
        errors.length ? `[${countBy(errors.map((e) => e.code))}]` : '',
        outcome.failure ? `threw: ${outcome.failure}` : '',
      ].filter(Boolean).join('  '),
    );
    if (showFindings) for (const f of outcome.findings) console.log(`      ${f.severity} ${f.code} @ ${f.where}: ${f.message}`);
  }
  const planned = outcomes.filter((o) => o.ready);
  const withUnknown = outcomes.filter((o) => o.request.unknown?.length);
  const errorFree = planned.filter((o) => !o.findings.some((f) => f.severity === 'error'));
  const allErrors = planned.flatMap((o) => o.findings.filter((f) => f.severity === 'error'));
  const allWarnings = planned.flatMap((o) => o.findings.filter((f) => f.severity === 'warning'));
  console.log('');
  console.log(`requests: ${outcomes.length} (${outcomes.filter((o) => o.request.server === 'existing').length} on an existing server, ${outcomes.filter((o) => o.request.server === 'new').length} on a new one; ${withUnknown.length} name software the catalogue does not hold)`);
  console.log(`ready: ${pct(outcomes.filter((o) => o.ready).length, outcomes.length)} (naming unknown software: ${pct(withUnknown.filter((o) => o.ready).length, withUnknown.length)})`);
  console.log(`plans with a stand-in for unknown software: ${withUnknown.filter((o) => o.misses.some((m) => m.startsWith('stand-in'))).length}`);
  console.log(`components as asked: ${pct(outcomes.filter((o) => o.asked).length, outcomes.length)}`);
  console.log(`plans without a verifier error: ${pct(errorFree.length, planned.length)}; errors ${allErrors.length} (${countBy(allErrors.map((e) => e.code)) || 'none'})`);
  console.log(`warnings: ${allWarnings.length} (${countBy(allWarnings.map((e) => e.code)) || 'none'})`);
  console.log(`unknowns named back: ${pct(withUnknown.filter((o) => o.unknownNamed).length, withUnknown.length)}`);
}

await main();
