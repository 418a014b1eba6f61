import type { Component, Exposure, StackModel } from '../../../shared/stackModel';
import { applyStackOp, StackOpError, type StackOp } from '../../../shared/stackOps';
import { CATALOGUE_VIEW } from './stackModelBridge';

/**
 * A correction as stack operations: the offline planner reads what a message asks for as a whole model
 * (its reading of words), and these are the operations that turn the stored model into it, one per
 * difference a person can ask for. The architecture and implementation chats send them as the same tool
 * calls a real model makes, so a correction made in any chat is an operation on the one stored model.
 */

const proxied = (e: Exposure): e is Extract<Exposure, { via: 'proxy' }> => e.via === 'proxy';
const productOf = (c: Component | undefined): string | undefined => (c?.source.kind === 'catalogue' ? c.source.id : undefined);

/**
 * The component of `after` that took `gone`'s place: a new one that a component which used `gone` now uses
 * instead (Nextcloud's database: MariaDB ruled out, PostgreSQL in its place). "Used" is a link of the model,
 * or a need of the user's catalogue product that `gone` filled and the new one fills (Grafana's data
 * source, where the compose file has no dependency to make a link of).
 */
export function replacementOf(before: StackModel, after: StackModel, gone: string): { by: string; for: string[] } | undefined {
  const goneId = productOf(before.components.find((c) => c.name === gone));
  const added = after.components.filter((c) => !before.components.some((x) => x.name === c.name));
  const users = before.components.filter((u) => u.name !== gone && after.components.some((x) => x.name === u.name));
  const takers = new Map<string, string[]>();
  for (const u of users) {
    const linked = before.links.some((l) => l.from === u.name && l.to === gone);
    const need = goneId ? CATALOGUE_VIEW[productOf(u) ?? '']?.needs.find((n) => n.includes(goneId)) : undefined;
    if (!linked && !need) continue;
    const by = added.find((a) => after.links.some((l) => l.from === u.name && l.to === a.name)) ?? added.find((a) => need?.includes(productOf(a) ?? ''));
    if (by) takers.set(by.name, [...(takers.get(by.name) ?? []), u.name]);
  }
  const [first] = takers;
  return first ? { by: first[0], for: first[1] } : undefined;
}

/** The operations that turn `current` into `wanted`. */
export function opsBetween(current: StackModel, wanted: StackModel): StackOp[] {
  const ops: StackOp[] = [];
  const has = (m: StackModel, name: string): Component | undefined => m.components.find((c) => c.name === name);
  const excluded = new Set(current.excluded);
  const replaced = new Set<string>();
  // A component gone whose users reach a new one instead was replaced (its links and exposures move with it).
  for (const c of current.components) {
    if (has(wanted, c.name)) continue;
    const by = replacementOf(current, wanted, c.name);
    const product = productOf(has(wanted, by?.by ?? ''));
    if (!by || !product || replaced.has(by.by)) continue;
    ops.push({ op: 'replaceComponent', name: c.name, product });
    replaced.add(by.by);
    replaced.add(c.name);
    const id = productOf(c);
    if (id) excluded.add(id);
  }
  for (const x of wanted.excluded) {
    if (excluded.has(x)) continue;
    ops.push({ op: 'exclude', name: x });
    excluded.add(x);
  }
  for (const c of current.components) {
    if (has(wanted, c.name) || replaced.has(c.name) || c.auto || excluded.has(productOf(c) ?? c.name)) continue;
    // Removed although another needs it: removeComponent keeps it out and says who lacks it; otherwise it is ruled out.
    const needed = wanted.leftOut.some((l) => l.name === productOf(c));
    ops.push(c.source.kind === 'catalogue' && !needed ? { op: 'exclude', name: c.source.id } : { op: 'removeComponent', name: c.name });
  }
  // What others reach is added first, so a product's need is met by the one the person named, not a default.
  const reached = new Set(wanted.links.map((l) => l.to));
  const order = [...wanted.components].sort((a, b) => Number(!reached.has(a.name)) - Number(!reached.has(b.name)));
  for (const c of order) {
    if (has(current, c.name) || replaced.has(c.name) || c.auto) continue;
    if (c.source.kind === 'catalogue') ops.push({ op: 'addComponent', product: c.source.id, ...(c.name !== c.source.id ? { name: c.name } : {}) });
    else ops.push({ op: 'addComponent', custom: c.source, name: c.name });
  }
  for (const c of wanted.components) if (c.keepPrivate && !has(current, c.name)?.keepPrivate) ops.push({ op: 'makePrivate', component: c.name });
  // Made public again: only words say so (confirmPublic), and the offline reading of them is such words.
  for (const c of wanted.components) {
    if (c.keepPrivate || !has(current, c.name)?.keepPrivate) continue;
    for (const e of wanted.exposures.filter((x) => x.component === c.name)) {
      if (proxied(e)) ops.push({ op: 'expose', component: c.name, via: 'proxy', tls: e.tls, confirmPublic: true, ...(e.domain ? { domain: e.domain } : {}), ...(e.upstream ? { upstream: e.upstream } : {}) });
      else if (e.bind === 'all') ops.push({ op: 'expose', component: c.name, via: 'port', hostPort: e.hostPort, confirmPublic: true, ...(e.containerPort ? { containerPort: e.containerPort } : {}) });
    }
  }
  const madePublic = new Set(ops.flatMap((o) => (o.op === 'expose' ? [o.component] : [])));
  for (const e of wanted.exposures.filter(proxied)) {
    if (!e.domain || has(wanted, e.component)?.auto || madePublic.has(e.component)) continue;
    const now = current.exposures.filter(proxied).find((x) => x.component === e.component);
    if (now?.domain !== e.domain || now.tls !== e.tls) ops.push({ op: 'setDomain', component: e.component, domain: e.domain, tls: e.tls });
  }
  for (const e of wanted.exposures) {
    if (e.via !== 'port' || e.bind === 'loopback' || madePublic.has(e.component)) continue;
    if (!current.exposures.some((x) => x.via === 'port' && x.component === e.component && x.hostPort === e.hostPort)) ops.push({ op: 'setPort', component: e.component, hostPort: e.hostPort });
  }
  if (wanted.target && JSON.stringify(wanted.target) !== JSON.stringify(current.target)) ops.push({ op: 'setTarget', target: wanted.target });
  const { memoryGb, cpus, storageGb, load } = wanted.sizing;
  const sizing = {
    ...(memoryGb !== undefined && memoryGb !== current.sizing.memoryGb ? { memoryGb } : {}),
    ...(cpus !== undefined && cpus !== current.sizing.cpus ? { cpus } : {}),
    ...(storageGb !== undefined && storageGb !== current.sizing.storageGb ? { storageGb } : {}),
    ...(load !== undefined && load !== current.sizing.load ? { load } : {}),
  };
  if (Object.keys(sizing).length) ops.push({ op: 'setSizing', ...sizing });
  for (const u of wanted.unknowns) {
    if (current.unknowns.some((x) => x.name.toLowerCase() === u.name.toLowerCase() && x.status === u.status)) continue;
    ops.push(u.status === 'skipped' ? { op: 'skipUnknown', name: u.name } : { op: 'askUnknown', name: u.name });
  }
  return ops;
}

export interface AppliedOps {
  model: StackModel;
  applied: StackOp[];
  /** The operations that could not be done, each with why (the operation's own error). */
  refused: Array<{ op: StackOp; why: string }>;
}

/** Applies operations one by one: one that cannot be done is set aside with its reason, the rest still apply. */
export function applyEach(model: StackModel, ops: StackOp[]): AppliedOps {
  const out: AppliedOps = { model, applied: [], refused: [] };
  for (const op of ops) {
    try {
      out.model = applyStackOp(out.model, op, CATALOGUE_VIEW);
      out.applied.push(op);
    } catch (err) {
      if (!(err instanceof StackOpError)) throw err;
      out.refused.push({ op, why: err.message });
    }
  }
  return out;
}
