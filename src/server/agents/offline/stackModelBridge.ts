import { emptyStackModel, type Component as ModelComponent, type Exposure, type StackModel } from '../../../shared/stackModel';
import { checkStackModel } from '../../../shared/stackOps';
import { catalogueView } from '../catalogue/view';
import { EXISTING_SERVER, PRODUCTS, providerOf } from './knowledge';
import { composeStack, type Stack, type StackOptions } from './composer';
import { emptyFacts, type Facts, type HostTask, type ProxyId } from './facts';

/**
 * Between the stack model (src/shared/stackModel.ts) and the offline planner's reading of words (Facts)
 * and its composer (Stack): `modelOfStack` says what a composed stack is as a model (what the plan
 * stores and the app shows), `factsOfModel` turns a model back into what the composer renders from,
 * so a model edited through the operations renders the same documents a conversation would.
 */

export const CATALOGUE_VIEW = catalogueView(PRODUCTS);

/** The model of a composed stack: its components, who reaches whom, what is public and how, where it runs. */
export function modelOfStack(stack: Stack): StackModel {
  const f = stack.facts;
  const m = emptyStackModel();
  const named = new Map<string, string>();
  for (const c of stack.components) {
    const image = f.images[c.id];
    m.components.push({
      name: c.id,
      source: { kind: 'catalogue', id: c.id, ...(image ? { image } : {}) },
      ...(c.services.some((s) => s.image === 'build') && f.appLanguage ? { language: f.appLanguage } : {}),
      ...(f.keepPrivate.has(c.id) ? { keepPrivate: true } : {}),
      ...(stack.services.some((s) => s.gpu && c.services.some((x) => x.name === s.name)) ? { gpu: true } : {}),
    });
    for (const s of c.services) named.set(s.name, c.id);
  }
  for (const s of stack.services) if (s.image === 'build' && !named.has(s.name)) named.set(s.name, stack.components.find((c) => c.services.some((x) => x.image === 'build'))?.id ?? s.name);
  for (const c of f.custom.filter((x) => stack.services.some((s) => s.name === x.name))) {
    const source: ModelComponent['source'] = {
      kind: 'image',
      image: c.image,
      ports: c.port ? [c.port] : [],
      ...(c.volumes.length ? { dataPaths: c.volumes.map((v) => v.slice(v.indexOf(':') + 1)) } : {}),
      ...(Object.keys(c.environment).length ? { environment: { ...c.environment } } : {}),
    };
    m.components.push({ name: c.name, source });
    named.set(c.name, c.name);
  }
  const proxy = stack.proxy;
  const proxyServices = new Set(proxy ? PRODUCTS[proxy]!.services.map((s) => s.name) : []);
  for (const s of stack.services) {
    const from = named.get(s.name);
    if (!from || proxyServices.has(s.name)) continue;
    for (const d of s.dependsOn ?? []) {
      const to = named.get(d);
      if (to && to !== from && !m.links.some((l) => l.from === from && l.to === to)) m.links.push({ from, to });
    }
  }
  for (const r of stack.routes) {
    const component = named.get(r.service);
    if (!component || !proxy) continue;
    const host = r.host === ':80' ? undefined : r.host;
    const tls = stack.tls && Boolean(host);
    m.exposures.push({ component, via: 'proxy', proxy, tls, ...(host ? { domain: host } : {}), ...(r.endpoint && stack.routes.find((x) => x.service === r.service) !== r ? { upstream: r.endpoint } : {}), ...(!tls && f.plainHttpOk ? { plainHttpAccepted: true } : {}) });
  }
  for (const p of stack.published) {
    const component = named.get(p.service);
    if (!component || proxyServices.has(p.service)) continue;
    const parts = p.port.split(':');
    const loopback = parts.length === 3;
    // Kept private: its loopback port is for an SSH tunnel, not an exposure (the model forbids any).
    if (loopback && f.keepPrivate.has(component)) continue;
    const [hostPort, container] = parts.slice(-2).map((x) => Number(x.split('/')[0]));
    if (CATALOGUE_VIEW[component]?.hostPorts.includes(hostPort!)) continue;
    const protocol = p.port.endsWith('/udp') ? 'udp' : 'tcp';
    if (m.exposures.some((e) => e.via === 'port' && e.hostPort === hostPort && (e.protocol ?? 'tcp') === protocol)) continue;
    m.exposures.push({ component, via: 'port', hostPort: hostPort!, containerPort: container!, bind: loopback ? 'loopback' : 'all', ...(protocol === 'udp' ? { protocol } : {}), ...(!loopback && f.plainHttpOk ? { plainHttpAccepted: true } : {}) });
  }
  if (f.sshTarget) m.target = { kind: 'existing', host: f.sshTarget.host, user: f.sshTarget.user, port: f.sshTarget.port };
  else if (f.provider && !providerOf(f.provider).existing) m.target = { kind: 'new', provider: f.provider, ...(f.region ? { region: f.region } : {}), ...(f.instanceType ? { size: f.instanceType } : {}) };
  m.sizing = {
    ...(f.memoryGb ? { memoryGb: f.memoryGb } : {}),
    ...(f.cpus ? { cpus: f.cpus } : {}),
    ...(f.storageGb ? { storageGb: f.storageGb } : {}),
    ...(f.load ? { load: f.load } : {}),
  };
  m.host = {
    firewall: f.hostTasks.has('ufw'),
    fail2ban: f.hostTasks.has('fail2ban'),
    automaticUpdates: f.hostTasks.has('unattended-upgrades'),
    ...(f.sshPort ? { sshPort: f.sshPort } : {}),
    allowlist: [...f.allowlist],
    allowScope: f.allowScope,
  };
  // Names gone on without ("skip X") stay named, so a model edited later still says what was left out.
  m.unknowns = [...f.unknown.map((name) => ({ name, status: 'asked' as const })), ...f.skipped.map((name) => ({ name, status: 'skipped' as const }))];
  m.excluded = [...f.excluded];
  // Removed although needed: kept as left out with who lacks it, so a model read back holds the removal.
  for (const id of f.heldOut) {
    if (stack.components.some((c) => c.id === id)) continue;
    const lacking = stack.components.flatMap((c) => c.needs.filter((n) => n.includes(id)).map((n) => `${c.id} needs ${n.map((x) => PRODUCTS[x]?.label ?? x).join(' or ')}`));
    m.leftOut.push({ name: id, reason: `you removed it${lacking.length ? `; ${lacking.join('; ')}` : ''}` });
  }
  if (stack.serverFacts && m.target) m.serverFacts = stack.serverFacts;
  if (f.backup) m.backup = { ...f.backup, skip: [...f.backup.skip] };
  return m;
}

/** What the composer renders from, for a model: its components, proxy, domains, ports, target and sizing. */
export function factsOfModel(model: StackModel): Facts {
  const f = emptyFacts();
  for (const c of model.components) {
    if (c.source.kind === 'image') {
      const data = c.source.dataPaths ?? [];
      f.custom.push({
        name: c.name,
        image: c.source.image,
        ...(c.source.ports[0] ? { port: c.source.ports[0] } : {}),
        volumes: data.map((p, i) => `${c.name.replace(/-/g, '_')}_data${i ? i + 1 : ''}:${p}`),
        environment: { ...(c.source.environment ?? {}) },
      });
      continue;
    }
    const product = PRODUCTS[c.source.id];
    if (!product) continue;
    if (product.category === 'proxy') f.proxy = product.id as ProxyId;
    else f.components.add(product.id);
    if (c.keepPrivate) f.keepPrivate.add(product.id);
    if (c.source.image) f.images[product.id] = c.source.image;
    if (c.language) f.appLanguage = c.language;
    if (c.gpu) f.gpu = true;
  }
  const proxied = model.exposures.filter((e): e is Extract<Exposure, { via: 'proxy' }> => e.via === 'proxy');
  for (const e of proxied) if (e.domain && !f.domains.some((d) => d.host === e.domain)) f.domains.push({ host: e.domain, component: e.component, ...(e.upstream ? { endpoint: e.upstream } : {}) });
  f.tls = proxied.some((e) => e.tls);
  f.plainHttpOk = model.exposures.some((e) => e.plainHttpAccepted);
  f.genericProxy = proxied.length > 0;
  f.domain = f.domains[0]?.host;
  f.noDomain = !f.domain;
  for (const e of model.exposures) {
    // Loopback ports are the composer's own rule (data services reached through an SSH tunnel), not an ask.
    if (e.via !== 'port' || e.bind === 'loopback') continue;
    const byCatalogue = model.components.find((c) => c.name === e.component && c.source.kind === 'catalogue');
    if (byCatalogue) f.ports.push({ host: e.hostPort, component: e.component });
  }
  const t = model.target;
  if (t?.kind === 'existing') {
    f.sshTarget = { host: t.host, user: t.user, port: t.port };
    f.provider = EXISTING_SERVER.id;
  } else if (t) {
    f.provider = t.provider;
    f.region = t.region;
    f.instanceType = t.size;
  }
  f.memoryGb = model.sizing.memoryGb;
  f.cpus = model.sizing.cpus;
  f.storageGb = model.sizing.storageGb;
  f.load = model.sizing.load;
  const tasks: HostTask[] = [...(model.host.firewall ? ['ufw' as const] : []), ...(model.host.fail2ban ? ['fail2ban' as const] : []), ...(model.host.automaticUpdates ? ['unattended-upgrades' as const] : [])];
  for (const t of tasks) f.hostTasks.add(t);
  f.sshPort = model.host.sshPort;
  f.allowlist = [...model.host.allowlist];
  f.allowScope = model.host.allowScope;
  f.unknown = model.unknowns.filter((u) => u.status === 'asked').map((u) => u.name);
  f.skipped = model.unknowns.filter((u) => u.status === 'skipped').map((u) => u.name);
  for (const x of model.excluded) f.excluded.add(x);
  f.backup = { ...model.backup, skip: [...model.backup.skip] };
  // A catalogue product left out and not in the stack was removed although needed: it stays out.
  for (const l of model.leftOut) if (PRODUCTS[l.name] && !model.components.some((c) => c.source.kind === 'catalogue' && c.source.id === l.name)) f.heldOut.add(l.name);
  f.acceptsDefaults = true;
  return f;
}

/** Problems of a stack's model (none: it keeps the model's rules); for tests and the verifier. */
export const modelProblems = (m: StackModel): string[] => checkStackModel(m, CATALOGUE_VIEW);

/** The stack a model renders: its documents, on a server whose ports in use (the model's facts) it avoids. */
export function renderStack(model: StackModel, options: StackOptions = {}): Stack {
  return composeStack(factsOfModel(model), { ...options, ...(model.serverFacts ? { serverFacts: model.serverFacts } : {}) });
}
