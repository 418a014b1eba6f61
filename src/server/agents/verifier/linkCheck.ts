import { PRODUCTS } from '../offline/knowledge';
import { productOf } from './catalogueKnowledge';
import type { ComposeModel, ComposeService } from './composeModel';
import { hostReferences, servicesMounting } from './references';
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
  for (const f of files) {
    if (!servicesMounting(compose, f.path).length) {
      findings.push({ severity: 'warning', code: 'file-not-mounted', message: `${f.path} is written but no service mounts it, so nothing reads it`, where: f.path });
    }
  }
  return findings;
}
