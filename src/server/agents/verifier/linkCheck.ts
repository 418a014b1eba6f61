import { PRODUCTS } from '../offline/knowledge';
import { productMustStayPrivate, productOf } from './catalogueKnowledge';
import type { ComposeModel, ComposeService } from './composeModel';
import { hostOf, hostReferences, servicesMounting, type HostReference } from './references';
import type { Finding, PlanFile } from './types';

/**
 * Links: every host a service reaches is a service of the stack on a network both are on; every service
 * a service waits for exists; every product the catalogue says a product needs is in the stack; every
 * configuration file is mounted by some service.
 */

function shareNetwork(a: ComposeService, b: ComposeService): boolean {
  if (a.networkMode === 'host' || b.networkMode === 'host') return false;
  const via = (s: ComposeService): string | undefined => s.networkMode?.match(/^service:(.+)$/)?.[1];
  if (via(a) === b.name || via(b) === a.name) return true;
  return a.networks.some((n) => b.networks.includes(n));
}

export function linkFindings(compose: ComposeModel, files: PlanFile[]): Finding[] {
  const findings: Finding[] = [];
  const byName = new Map<string, ComposeService>();
  for (const s of compose.services) {
    byName.set(s.name, s);
    for (const a of s.aliases) if (!byName.has(a)) byName.set(a, s);
  }
  const seen = new Set<string>();
  for (const ref of hostReferences(compose, files)) {
    const target = byName.get(ref.host);
    const from = byName.get(ref.from)!;
    // A dotted name that is not a service is a public address (the person's domain, an outside API).
    if (!target && ref.host.includes('.')) continue;
    const key = `${ref.from}>${ref.host}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!target) {
      findings.push({
        severity: 'error',
        code: 'link-missing-service',
        message: `${ref.from} connects to "${ref.host}", but the stack has no service of that name: add it, or point ${ref.from} at the service that is meant`,
        where: ref.where,
      });
    } else if (target !== from && !shareNetwork(from, target)) {
      findings.push({
        severity: 'error',
        code: 'link-no-shared-network',
        message: `${ref.from} connects to ${target.name}, but they share no network (${ref.from}: ${from.networks.join(', ') || 'none'}; ${target.name}: ${target.networks.join(', ') || 'none'}), so the name does not resolve`,
        where: ref.where,
      });
    }
  }
  for (const s of compose.services) {
    for (const d of s.dependsOn) {
      if (!byName.has(d)) findings.push({ severity: 'error', code: 'depends-on-missing', message: `${s.name} waits for ${d}, which the stack does not run`, where: `docker-compose.yml services.${s.name}.depends_on` });
    }
    // Each need is filled by any of its products (Nextcloud's database: PostgreSQL, MariaDB or MySQL). A
    // warning: the product may reach one outside the stack; a connection written to a missing one is an error above.
    const product = productOf(s);
    for (const need of product?.needs ?? []) {
      const present = compose.services.some((x) => need.includes(productOf(x)?.id ?? ''));
      if (!present) {
        findings.push({
          severity: 'warning',
          code: 'required-component-missing',
          message: `${s.name} (${product!.label}) needs ${need.map((id) => PRODUCTS[id]?.label ?? id).join(' or ')}, which the stack does not run`,
          where: `docker-compose.yml services.${s.name}`,
        });
      }
    }
  }
  findings.push(...unusedStoreFindings(compose, hostReferences(compose, files)));
  for (const f of files) {
    if (!servicesMounting(compose, f.path).length) {
      findings.push({ severity: 'warning', code: 'file-not-mounted', message: `${f.path} is written but no service mounts it, so nothing reads it`, where: f.path });
    }
  }
  return findings;
}

/**
 * A database, cache, queue or search engine that no service of the stack connects to, while another
 * service does connect to one of the same kind: the person named it for that service (Forgejo "with
 * MariaDB"), but the service was wired to another one (its PostgreSQL), so it runs, is backed up and is
 * paid for, holding nothing. A store nothing at all connects to (a database asked for on its own, for
 * software outside the stack) is not this: nothing in the stack chose another one instead.
 */
function unusedStoreFindings(compose: ComposeModel, refs: HostReference[]): Finding[] {
  const byName = new Map(compose.services.map((s) => [s.name, s]));
  const reached = new Set<string>();
  for (const r of refs) if (r.from !== r.host) reached.add(byName.get(r.host)?.name ?? r.host);
  // A bare service name in any setting (`PAPERLESS_DBHOST: postgres`) is a connection too, whatever the key is called.
  for (const s of compose.services) for (const v of Object.values(s.environment)) {
    const host = hostOf(v);
    if (host && host !== s.name && byName.has(host)) reached.add(host);
  }
  const kindOf = (s: ComposeService): string | undefined => {
    const product = productOf(s);
    return productMustStayPrivate(product) ? product!.category : undefined;
  };
  const findings: Finding[] = [];
  for (const store of compose.services) {
    const kind = kindOf(store);
    if (!kind || reached.has(store.name)) continue;
    const users = refs.filter((r) => r.from !== r.host && byName.has(r.host) && kindOf(byName.get(r.host)!) === kind && !kindOf(byName.get(r.from)!));
    if (!users.length) continue;
    const instead = [...new Set(users.map((r) => `${r.from} uses ${byName.get(r.host)!.name}`))].join(', ');
    findings.push({
      severity: 'warning',
      code: 'store-unused',
      message: `${store.name} runs, but no service of the stack connects to it (${instead}): wire the service that should use it to it, or remove it`,
      where: `docker-compose.yml services.${store.name}`,
    });
  }
  return findings;
}
