import { Type, type Static } from 'typebox';
import {
  BackupDestination,
  ComponentName,
  DomainName,
  ExistingTarget,
  ImageRef,
  NewTarget,
  Port,
  ServerFacts,
  type Component,
  type Exposure,
  type StackModel,
} from './stackModel';

/**
 * The named operations on the stack model: the only way the requirements conversation changes it.
 *
 * How to use them (conversation, Collected Requirements panel, a real model):
 * - `applyStackOp(model, op, catalogue)` answers a new model and never changes the one given. An
 *   operation that cannot be done throws `StackOpError` whose message says why in words a person (or a
 *   model) can act on: "port 80 is already published by caddy"; send it back as the tool's result.
 * - A real model gets `STACK_OP_TOOLS` as its tools (one per operation, each with its JSON schema as
 *   `parameters`); a tool call becomes `{ op: <tool name>, ...arguments }`, checked with `StackOp`
 *   (`Value.Check(StackOp, op)`) before it is applied.
 * - The catalogue is passed as a `CatalogueView` (ids, ports, needs, which products are proxies), so
 *   the app can apply the same operations with the view the server sends it.
 * - After every operation the model holds: unique component names; links and exposures only between
 *   components of the stack; no host port published twice (a proxy holds 80 and 443); nothing exposed
 *   that the person said must stay private. `checkStackModel` answers what breaks these (none: valid).
 * - Adding a catalogue product adds what it needs (its first supported choice not ruled out, or one the
 *   stack already has) marked `auto`, linked to it; removing the last component that links to an `auto`
 *   component removes that too. So "add X" then "remove X" leaves the model as it was.
 * - "I do NOT want Nginx": `exclude` (removes it and keeps defaults from adding it back); "remove Nginx":
 *   `removeComponent`; "MariaDB instead of Postgres": `replaceComponent`, which keeps its links.
 */

/** What the operations need to know of a catalogue product. The server builds it from the catalogue files. */
export interface ProductView {
  id: string;
  label: string;
  category: string;
  /** Container ports it listens on, its web port first. */
  ports: number[];
  /** What it needs: each entry lists the catalogue ids that can fill it, preferred first. */
  needs: string[][];
  /** A reverse proxy: it publishes `hostPorts` and fronts the proxied exposures. */
  proxy: boolean;
  /** Host ports it publishes whatever else (a proxy's 80 and 443, Forgejo's Git over SSH). */
  hostPorts: number[];
  /** Named endpoints a proxy can send a domain to (MinIO's `api` and `console`); the first is the default. */
  upstreams: string[];
  /** Kinds of workload it fills when asked for without a name, with its preference (1 first): `proxy` picks the proxy added. */
  defaultFor?: Partial<Record<string, number>>;
}
export type CatalogueView = Record<string, ProductView>;

export class StackOpError extends Error {}

const ProductId = Type.String({ pattern: '^[a-z][a-zA-Z0-9-]*$', description: 'A catalogue id, e.g. "postgres"' });
const CustomImage = Type.Object(
  {
    image: ImageRef,
    ports: Type.Array(Port, { maxItems: 16, description: 'Ports the container listens on, web port first' }),
    dataPaths: Type.Optional(Type.Array(Type.String({ pattern: '^/[^:\\s]*$' }), { maxItems: 16 })),
    environment: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 4096 }))),
    healthPath: Type.Optional(Type.String({ pattern: '^/[^\\s]*$' })),
  },
  { additionalProperties: false },
);

const op = <N extends string, P extends Parameters<typeof Type.Object>[0]>(name: N, description: string, properties: P) =>
  Type.Object({ op: Type.Literal(name), ...properties }, { additionalProperties: false, description });

export const AddComponentOp = op('addComponent', 'Add a catalogue product (with what it needs) or a custom image.', {
  product: Type.Optional(ProductId),
  custom: Type.Optional(CustomImage),
  /** Its name in the stack; default: the product id, or one made from the image name. */
  name: Type.Optional(ComponentName),
});
export const RemoveComponentOp = op('removeComponent', 'Remove a component, its links and exposures (and what was added only for it).', {
  name: ComponentName,
});
export const ExcludeOp = op('exclude', 'The person rules a product out ("not MySQL"): removed if present, never added back by a default.', {
  name: Type.String({ minLength: 1, maxLength: 100 }),
});
export const ReplaceComponentOp = op('replaceComponent', 'Replace a component by another product or image, keeping who reaches it and how it is exposed.', {
  name: ComponentName,
  product: Type.Optional(ProductId),
  custom: Type.Optional(CustomImage),
});
export const LinkOp = op('link', 'Say that one component reaches another (through `setting`, for a custom image).', {
  from: ComponentName,
  to: ComponentName,
  setting: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
});
export const UnlinkOp = op('unlink', 'Remove a link.', { from: ComponentName, to: ComponentName });
export const ExposeOp = op('expose', 'Make a component public: through the reverse proxy (adding one when the stack has none) or on a host port.', {
  component: ComponentName,
  via: Type.Union([Type.Literal('proxy'), Type.Literal('port')]),
  domain: Type.Optional(DomainName),
  tls: Type.Optional(Type.Boolean()),
  upstream: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9-]*$' })),
  /** With via=port. */
  hostPort: Type.Optional(Port),
  containerPort: Type.Optional(Port),
  bind: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('loopback')])),
  /** Only when the person said in words that plain HTTP is fine for a sensitive app. */
  plainHttpAccepted: Type.Optional(Type.Boolean()),
  /** The person said in words to make public a component they had asked to keep private. */
  confirmPublic: Type.Optional(Type.Boolean()),
});
export const MakePrivateOp = op('makePrivate', 'Keep a component private: no exposure, and none may be added.', { component: ComponentName });
export const SetDomainOp = op('setDomain', 'Serve a component (default: the first proxied one) at a domain, with TLS unless tls=false.', {
  domain: DomainName,
  component: Type.Optional(ComponentName),
  tls: Type.Optional(Type.Boolean()),
});
export const SetPortOp = op('setPort', "Publish a component's container port (default: its first) on this host port.", {
  component: ComponentName,
  hostPort: Port,
  containerPort: Type.Optional(Port),
});
export const SetTargetOp = op('setTarget', 'Where the stack runs: an existing server over SSH, or a new machine at a provider.', {
  target: Type.Union([ExistingTarget, NewTarget]),
});
export const SetServerFactsOp = op('setServerFacts', 'Record what an inspection of the target server found.', { facts: ServerFacts });
export const SetSizingOp = op('setSizing', 'Machine size and load the person asked for (absent fields stay).', {
  memoryGb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
  cpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  storageGb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  load: Type.Optional(Type.String({ maxLength: 200 })),
});
export const SetBackupOp = op('setBackup', 'Backups: on or off, schedule, retention, components not to back up, where they go (a restic repository off the server).', {
  enabled: Type.Optional(Type.Boolean()),
  schedule: Type.Optional(Type.String({ pattern: '^[0-9*/,-]+( [0-9*/,-]+){4}$' })),
  keepDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  skip: Type.Optional(Type.Array(ComponentName, { maxItems: 100 })),
  /** A restic repository off the server; null: none, the backups stay on the server. */
  destination: Type.Optional(Type.Union([BackupDestination, Type.Null()])),
});
export const SetGpuOp = op('setGpu', "Give a component the host's GPUs (or take them away).", { component: ComponentName, gpu: Type.Boolean() });
export const AskUnknownOp = op('askUnknown', 'A name the catalogue does not know: asked about once.', { name: Type.String({ minLength: 1, maxLength: 100 }) });
export const SkipUnknownOp = op('skipUnknown', 'Go on without an unknown name; the plan says it was left out.', { name: Type.String({ minLength: 1, maxLength: 100 }) });
export const AnswerUnknownOp = op('answerUnknown', 'An unknown name is answered by a component of the stack (an alternative, or an image).', {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  by: ComponentName,
});
export const LeaveOutOp = op('leaveOut', 'Something asked for is not in the plan; say why.', {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});

export const StackOp = Type.Union([
  AddComponentOp, RemoveComponentOp, ExcludeOp, ReplaceComponentOp, LinkOp, UnlinkOp, ExposeOp, MakePrivateOp, SetDomainOp, SetPortOp,
  SetTargetOp, SetServerFactsOp, SetSizingOp, SetBackupOp, SetGpuOp, AskUnknownOp, SkipUnknownOp, AnswerUnknownOp, LeaveOutOp,
]);
export type StackOp = Static<typeof StackOp>;

/** One tool per operation, for a model's tool list (OpenAI-style `function` tools). */
export const STACK_OP_TOOLS: Array<{ name: StackOp['op']; description: string; parameters: Record<string, unknown> }> = StackOp.anyOf.map((schema) => {
  const { op: _tag, ...properties } = schema.properties as Record<string, unknown>;
  return {
    name: (schema.properties.op as { const: StackOp['op'] }).const,
    description: String((schema as { description?: string }).description ?? ''),
    parameters: { type: 'object', properties, required: (schema.required ?? []).filter((r: string) => r !== 'op'), additionalProperties: false },
  };
});

// ---------------------------------------------------------------------------------------------------

const copy = (m: StackModel): StackModel => JSON.parse(JSON.stringify(m)) as StackModel;

const productOf = (c: Component): string | undefined => (c.source.kind === 'catalogue' ? c.source.id : undefined);

function find(m: StackModel, name: string): Component {
  const c = m.components.find((x) => x.name === name);
  if (!c) throw new StackOpError(`${name} is not in the stack (it has ${m.components.map((x) => x.name).join(', ') || 'nothing yet'})`);
  return c;
}

function catalogueProduct(catalogue: CatalogueView, id: string): ProductView {
  const e = catalogue[id];
  if (!e) throw new StackOpError(`${id} is not in the catalogue`);
  return e;
}

/** A stack name for an image: its last path part, lower-case, made unique in the stack. */
function nameForImage(m: StackModel, image: string): string {
  const base = image.replace(/[:@].*$/, '').split('/').pop()!.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+|-+$/g, '') || 'service';
  return uniqueName(m, base.slice(0, 50));
}

function uniqueName(m: StackModel, base: string): string {
  let name = base;
  for (let i = 2; m.components.some((c) => c.name === name); i += 1) name = `${base}-${i}`;
  return name;
}

/** Host ports a component holds: its product's fixed ones and its port exposures. */
export function publishedPorts(m: StackModel, catalogue: CatalogueView): Array<{ component: string; port: number; protocol: 'tcp' | 'udp' }> {
  const out: Array<{ component: string; port: number; protocol: 'tcp' | 'udp' }> = [];
  for (const c of m.components) {
    const id = productOf(c);
    for (const port of id ? catalogue[id]?.hostPorts ?? [] : []) out.push({ component: c.name, port, protocol: 'tcp' });
  }
  for (const e of m.exposures) if (e.via === 'port') out.push({ component: e.component, port: e.hostPort, protocol: e.protocol ?? 'tcp' });
  return out;
}

/** What breaks the model's rules; none: valid. */
export function checkStackModel(m: StackModel, catalogue: CatalogueView): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const c of m.components) {
    if (names.has(c.name)) problems.push(`two components are named ${c.name}`);
    names.add(c.name);
    const id = productOf(c);
    if (id && !catalogue[id]) problems.push(`${c.name}: ${id} is not in the catalogue`);
  }
  for (const l of m.links) for (const n of [l.from, l.to]) if (!names.has(n)) problems.push(`link ${l.from} → ${l.to}: ${n} is not in the stack`);
  for (const e of m.exposures) {
    if (!names.has(e.component)) problems.push(`exposure of ${e.component}: not in the stack`);
    if (e.via === 'proxy' && !names.has(e.proxy)) problems.push(`${e.component} is served through ${e.proxy}, which is not in the stack`);
    if (m.components.find((c) => c.name === e.component)?.keepPrivate) problems.push(`${e.component} must stay private but is exposed`);
    if (e.via === 'proxy' && e.tls && !e.domain) problems.push(`${e.component}: TLS needs a domain`);
  }
  const seen = new Map<string, string>();
  for (const p of publishedPorts(m, catalogue)) {
    const key = `${p.port}/${p.protocol}`;
    const holder = seen.get(key);
    if (holder !== undefined && holder !== p.component) problems.push(`host port ${key} is published by both ${holder} and ${p.component}`);
    else if (holder === p.component) problems.push(`host port ${key} is published twice by ${p.component}`);
    seen.set(key, p.component);
  }
  return problems;
}

function portHolder(m: StackModel, catalogue: CatalogueView, port: number, protocol: 'tcp' | 'udp', except?: (p: { component: string; port: number }) => boolean): string | undefined {
  const inStack = publishedPorts(m, catalogue).find((p) => p.port === port && p.protocol === protocol && !except?.(p));
  if (inStack) return `${inStack.component} in this stack`;
  const onServer = m.serverFacts?.portsInUse.find((p) => p.port === port && p.protocol === protocol);
  if (onServer) return `${onServer.holder ?? 'something'} on the server`;
  return undefined;
}

/** Adds a catalogue product and what it needs; answers its name. */
function addProduct(m: StackModel, catalogue: CatalogueView, id: string, name: string | undefined, auto: boolean): string {
  const e = catalogueProduct(catalogue, id);
  const present = m.components.find((c) => productOf(c) === id && (!name || c.name === name));
  if (present) {
    if (!auto) delete present.auto;
    return present.name;
  }
  const own = uniqueName(m, name ?? id);
  m.components.push({ name: own, source: { kind: 'catalogue', id }, ...(auto ? { auto: true } : {}) });
  m.excluded = m.excluded.filter((x) => x !== id);
  m.leftOut = m.leftOut.filter((l) => l.name !== id);
  for (const choices of e.needs) {
    const pick = fillNeed(m, catalogue, own, choices);
    if (pick && !m.links.some((l) => l.from === own && l.to === pick)) m.links.push({ from: own, to: pick });
    if (!pick) m.leftOut.push({ name: choices.map((c) => catalogue[c]?.label ?? c).join(' or '), reason: `${e.label} needs it, and you ruled it out` });
  }
  return own;
}

/** The needs `id` was a choice of that no component of the stack fills any more, said as "Nextcloud 30 needs MariaDB or PostgreSQL". */
function unmetNeedsOf(m: StackModel, catalogue: CatalogueView, id: string): string[] {
  const have = new Set(m.components.map(productOf));
  return m.components.flatMap((c) => {
    const e = catalogue[productOf(c) ?? ''];
    const unmet = (e?.needs ?? []).filter((need) => need.includes(id) && !need.some((x) => have.has(x)));
    return unmet.map((need) => `${c.name} needs ${need.map((x) => catalogue[x]?.label ?? x).join(' or ')}`);
  });
}

/** What fills a need of `user`: a component the stack has, else the first choice not ruled out, added. */
function fillNeed(m: StackModel, catalogue: CatalogueView, user: string, choices: string[]): string | undefined {
  const have = m.components.find((c) => c.name !== user && choices.includes(productOf(c) ?? ''));
  if (have) return have.name;
  const first = choices.find((c) => !m.excluded.includes(c) && catalogue[c]);
  return first ? addProduct(m, catalogue, first, undefined, true) : undefined;
}

/** Removes a component, its links, exposures and backup mark, then `auto` components nothing links to any more. */
function removeNamed(m: StackModel, name: string): void {
  m.components = m.components.filter((c) => c.name !== name);
  m.links = m.links.filter((l) => l.from !== name && l.to !== name);
  m.exposures = m.exposures.filter((e) => e.component !== name && !(e.via === 'proxy' && e.proxy === name));
  m.backup.skip = m.backup.skip.filter((s) => s !== name);
  m.unknowns = m.unknowns.map((u) => (u.answeredBy === name ? { name: u.name, status: 'asked' as const } : u));
  dropOrphans(m);
}

/** `auto` components nothing links to or serves through any more. */
function dropOrphans(m: StackModel): void {
  const needed = (c: Component): boolean => m.links.some((l) => l.to === c.name) || m.exposures.some((e) => e.via === 'proxy' && e.proxy === c.name);
  const orphan = m.components.find((c) => c.auto && !needed(c));
  if (orphan) removeNamed(m, orphan.name);
}

/** The stack's reverse proxy, added (the catalogue's preferred proxy not ruled out, by its `defaultFor`) when it has none. */
function proxyOf(m: StackModel, catalogue: CatalogueView): string {
  const have = m.components.find((c) => catalogue[productOf(c) ?? '']?.proxy);
  if (have) return have.name;
  const rank = (e: ProductView): number => e.defaultFor?.proxy ?? Number.MAX_SAFE_INTEGER;
  const id = Object.values(catalogue).filter((e) => e.proxy && !m.excluded.includes(e.id)).sort((a, b) => rank(a) - rank(b))[0]?.id;
  if (!id) throw new StackOpError('no reverse proxy is left to serve it: every proxy of the catalogue was ruled out');
  const e = catalogue[id]!;
  for (const port of e.hostPorts) {
    const holder = portHolder(m, catalogue, port, 'tcp');
    if (holder) throw new StackOpError(`${e.label} needs host port ${port}, which ${holder} already publishes`);
  }
  return addProduct(m, catalogue, id, undefined, true);
}

function customComponent(m: StackModel, custom: Static<typeof CustomImage>, name: string | undefined): Component {
  return { name: name ?? nameForImage(m, custom.image), source: { kind: 'image', ...custom } };
}

function containerPortOf(m: StackModel, catalogue: CatalogueView, c: Component): number | undefined {
  return c.source.kind === 'image' ? c.source.ports[0] : catalogue[c.source.id]?.ports[0];
}

/** Applies one operation; answers a new model (the given one is left as it was), or throws StackOpError. */
export function applyStackOp(model: StackModel, o: StackOp, catalogue: CatalogueView): StackModel {
  const m = copy(model);
  switch (o.op) {
    case 'addComponent': {
      if (Boolean(o.product) === Boolean(o.custom)) throw new StackOpError('addComponent takes either a catalogue product or a custom image');
      if (o.product) addProduct(m, catalogue, o.product, o.name, false);
      else {
        if (o.name && m.components.some((c) => c.name === o.name)) throw new StackOpError(`${o.name} is already in the stack`);
        m.components.push(customComponent(m, o.custom!, o.name));
      }
      break;
    }
    case 'removeComponent': {
      const id = productOf(find(m, o.name));
      removeNamed(m, o.name);
      // Removed although another component needs it: the removal holds (no default adds it back), kept as
      // left out with who lacks it, so the plan can say so rather than put it back.
      const lacking = id ? unmetNeedsOf(m, catalogue, id) : [];
      if (id && lacking.length) {
        m.leftOut = m.leftOut.filter((l) => l.name !== id);
        m.leftOut.push({ name: id, reason: `you removed it; ${lacking.join('; ')}` });
      }
      break;
    }
    case 'exclude': {
      for (const c of m.components.filter((x) => x.name === o.name || productOf(x) === o.name)) removeNamed(m, c.name);
      if (!m.excluded.includes(o.name)) m.excluded.push(o.name);
      break;
    }
    case 'replaceComponent': {
      const old = find(m, o.name);
      if (Boolean(o.product) === Boolean(o.custom)) throw new StackOpError('replaceComponent takes either a catalogue product or a custom image');
      if (o.product) {
        catalogueProduct(catalogue, o.product);
        for (const l of m.links.filter((x) => x.to === o.name)) {
          const user = m.components.find((c) => c.name === l.from);
          const needs = user && productOf(user) ? catalogue[productOf(user)!]?.needs ?? [] : [];
          const oldId = productOf(old);
          const need = needs.find((n) => oldId && n.includes(oldId));
          if (need && !need.includes(o.product)) throw new StackOpError(`${user!.name} cannot use ${catalogue[o.product]!.label}; it works with ${need.map((x) => catalogue[x]?.label ?? x).join(', ')}`);
        }
      }
      const newName = o.product ? uniqueName({ ...m, components: m.components.filter((c) => c !== old) }, o.product) : nameForImage({ ...m, components: m.components.filter((c) => c !== old) }, o.custom!.image);
      const replacement: Component = o.product ? { name: newName, source: { kind: 'catalogue', id: o.product } } : customComponent(m, o.custom!, newName);
      m.components[m.components.indexOf(old)] = replacement;
      const rename = (n: string): string => (n === o.name ? newName : n);
      m.links = m.links.map((l) => ({ ...l, from: rename(l.from), to: rename(l.to) }));
      m.exposures = m.exposures.map((e) => (e.via === 'proxy' ? { ...e, component: rename(e.component), proxy: rename(e.proxy) } : { ...e, component: rename(e.component) }));
      m.backup.skip = m.backup.skip.map(rename);
      const oldId = productOf(old);
      if (oldId && !m.excluded.includes(oldId)) m.excluded.push(oldId);
      if (o.product) m.excluded = m.excluded.filter((x) => x !== o.product);
      // What the new product needs that the old one did not bring.
      if (o.product) {
        for (const choices of catalogueProduct(catalogue, o.product).needs) {
          if (m.links.some((l) => l.from === newName && choices.includes(productOf(m.components.find((c) => c.name === l.to)!) ?? ''))) continue;
          const pick = fillNeed(m, catalogue, newName, choices);
          if (pick) m.links.push({ from: newName, to: pick });
        }
      }
      break;
    }
    case 'link': {
      find(m, o.from);
      find(m, o.to);
      if (o.from === o.to) throw new StackOpError('a component does not link to itself');
      m.links = m.links.filter((l) => !(l.from === o.from && l.to === o.to));
      m.links.push({ from: o.from, to: o.to, ...(o.setting ? { setting: o.setting } : {}) });
      break;
    }
    case 'unlink':
      m.links = m.links.filter((l) => !(l.from === o.from && l.to === o.to));
      dropOrphans(m);
      break;
    case 'expose': {
      const c = find(m, o.component);
      if (c.keepPrivate && !o.confirmPublic) throw new StackOpError(`${c.name} was asked to stay private; expose it only when the person says so (confirmPublic)`);
      delete c.keepPrivate;
      if (o.via === 'proxy') {
        if (catalogue[productOf(c) ?? '']?.proxy) throw new StackOpError(`${c.name} is the reverse proxy itself`);
        const upstreams = catalogue[productOf(c) ?? '']?.upstreams ?? [];
        if (o.upstream && !upstreams.includes(o.upstream)) throw new StackOpError(`${c.name} has no endpoint ${o.upstream}${upstreams.length ? ` (it has ${upstreams.join(', ')})` : ''}`);
        const tls = Boolean(o.domain) && o.tls !== false;
        if (o.tls && !o.domain) throw new StackOpError('TLS needs a domain name pointing at the server');
        if (!o.domain && m.exposures.some((e) => e.via === 'proxy' && !e.domain && e.component !== c.name)) {
          throw new StackOpError(`without a domain only one component is served on the server's address; ${m.exposures.find((e) => e.via === 'proxy' && !e.domain)!.component} already is: give ${c.name} a domain`);
        }
        const proxy = proxyOf(m, catalogue);
        m.exposures = m.exposures.filter((e) => !(e.component === c.name && e.via === 'proxy' && (e.upstream ?? '') === (o.upstream ?? '')));
        m.exposures.push({
          component: c.name, via: 'proxy', proxy, tls,
          ...(o.domain ? { domain: o.domain } : {}),
          ...(o.upstream ? { upstream: o.upstream } : {}),
          ...(o.plainHttpAccepted ? { plainHttpAccepted: true } : {}),
        });
      } else {
        if (!o.hostPort) throw new StackOpError('a port exposure needs hostPort');
        const containerPort = o.containerPort ?? containerPortOf(m, catalogue, c);
        if (!containerPort) throw new StackOpError(`${c.name} listens on no known port: say which (containerPort)`);
        const holder = portHolder(m, catalogue, o.hostPort, 'tcp', (p) => p.component === c.name && m.exposures.some((e) => e.via === 'port' && e.component === c.name && e.hostPort === p.port && (e.containerPort ?? containerPort) === containerPort));
        if (holder) throw new StackOpError(`host port ${o.hostPort} is already taken by ${holder}`);
        m.exposures = m.exposures.filter((e) => !(e.via === 'port' && e.component === c.name && (e.containerPort ?? containerPort) === containerPort));
        m.exposures.push({ component: c.name, via: 'port', hostPort: o.hostPort, containerPort, bind: o.bind ?? 'all', ...(o.plainHttpAccepted ? { plainHttpAccepted: true } : {}) });
      }
      break;
    }
    case 'makePrivate': {
      const c = find(m, o.component);
      c.keepPrivate = true;
      m.exposures = m.exposures.filter((e) => e.component !== c.name);
      dropOrphans(m);
      break;
    }
    case 'setDomain': {
      const exposure = (o.component
        ? m.exposures.find((e) => e.via === 'proxy' && e.component === o.component)
        : m.exposures.find((e) => e.via === 'proxy')) as Extract<Exposure, { via: 'proxy' }> | undefined;
      if (!exposure) {
        const name = o.component ?? m.components.find((c) => !c.keepPrivate && !catalogue[productOf(c) ?? '']?.proxy && (catalogue[productOf(c) ?? '']?.upstreams.length ?? (c.source.kind === 'image' && c.source.ports.length)))?.name;
        if (!name) throw new StackOpError('nothing in the stack is served to people yet: say which component the domain is for');
        return applyStackOp(m, { op: 'expose', component: name, via: 'proxy', domain: o.domain, tls: o.tls !== false }, catalogue);
      }
      if (m.exposures.some((e) => e !== exposure && e.via === 'proxy' && e.domain === o.domain)) throw new StackOpError(`${o.domain} already serves another component`);
      exposure.domain = o.domain;
      exposure.tls = o.tls !== false;
      break;
    }
    case 'setPort': {
      const c = find(m, o.component);
      return applyStackOp(m, { op: 'expose', component: c.name, via: 'port', hostPort: o.hostPort, ...(o.containerPort ? { containerPort: o.containerPort } : {}) }, catalogue);
    }
    case 'setTarget':
      if (JSON.stringify(m.target) !== JSON.stringify(o.target)) delete m.serverFacts;
      m.target = o.target;
      break;
    case 'setServerFacts':
      // Without a target they are the facts of the server the User Secrets name (SERVER_USER, SERVER_HOST); a new machine runs nothing yet.
      if (m.target?.kind === 'new') throw new StackOpError('the plan creates a new machine, which runs nothing yet: there are no facts to keep');
      m.serverFacts = o.facts;
      break;
    case 'setSizing': {
      const { op: _tag, ...sizing } = o;
      m.sizing = { ...m.sizing, ...sizing };
      break;
    }
    case 'setBackup': {
      const { op: _tag, destination, ...backup } = o;
      for (const s of backup.skip ?? []) find(m, s);
      m.backup = { ...m.backup, ...backup };
      if (destination) m.backup.destination = destination;
      else if (destination === null) delete m.backup.destination;
      break;
    }
    case 'setGpu':
      find(m, o.component).gpu = o.gpu || undefined;
      if (!o.gpu) delete find(m, o.component).gpu;
      break;
    case 'askUnknown':
      if (!m.unknowns.some((u) => u.name.toLowerCase() === o.name.toLowerCase())) m.unknowns.push({ name: o.name, status: 'asked' });
      break;
    case 'skipUnknown': {
      const known = m.unknowns.find((u) => u.name.toLowerCase() === o.name.toLowerCase());
      if (known) known.status = 'skipped';
      else m.unknowns.push({ name: o.name, status: 'skipped' });
      if (!m.leftOut.some((l) => l.name.toLowerCase() === o.name.toLowerCase())) m.leftOut.push({ name: known?.name ?? o.name, reason: 'not in the catalogue; you chose to go on without it' });
      break;
    }
    case 'answerUnknown': {
      find(m, o.by);
      m.unknowns = m.unknowns.filter((u) => u.name.toLowerCase() !== o.name.toLowerCase());
      m.unknowns.push({ name: o.name, status: 'answered', answeredBy: o.by });
      m.leftOut = m.leftOut.filter((l) => l.name.toLowerCase() !== o.name.toLowerCase());
      break;
    }
    case 'leaveOut':
      m.leftOut = m.leftOut.filter((l) => l.name !== o.name);
      m.leftOut.push({ name: o.name, reason: o.reason });
      break;
  }
  const problems = checkStackModel(m, catalogue);
  if (problems.length) throw new StackOpError(problems.join('; '));
  return m;
}

/** Applies operations in order; stops at the first that cannot be done (its error names it). */
export function applyStackOps(model: StackModel, ops: StackOp[], catalogue: CatalogueView): StackModel {
  return ops.reduce((m, o, i) => {
    try {
      return applyStackOp(m, o, catalogue);
    } catch (err) {
      if (err instanceof StackOpError) throw new StackOpError(`operation ${i + 1} (${o.op}): ${err.message}`);
      throw err;
    }
  }, model);
}
