import type { StackModel } from '../../../shared/stackModel';
import { PRODUCTS } from '../offline/knowledge';
import type { PersonIntent, TargetFacts } from './types';

/** The compose services a component of the model runs: a catalogue product's services, or itself. */
function servicesOf(model: StackModel, name: string): string[] {
  const c = model.components.find((x) => x.name === name);
  const product = c?.source.kind === 'catalogue' ? PRODUCTS[c.source.id] : undefined;
  return [name, ...(product?.services.map((s) => s.name) ?? [])];
}

/**
 * What the stack model adds to a plan's check: the person's words (components kept private, plain HTTP
 * accepted, data not to back up) and what the inspection of the target server found.
 */
export function verifierFactsOf(model: StackModel | undefined): { intent?: PersonIntent; target?: TargetFacts } {
  if (!model) return {};
  const intent: PersonIntent = {
    keepPrivate: model.components.filter((c) => c.keepPrivate).flatMap((c) => servicesOf(model, c.name)),
    plainHttpAccepted: model.exposures.filter((e) => e.plainHttpAccepted).flatMap((e) => servicesOf(model, e.component)),
    ...(model.host.allowScope === 'all' && model.host.allowlist.length ? { onlyFrom: [...model.host.allowlist] } : {}),
    backupSkip: (model.backup.enabled ? model.backup.skip : model.components.map((c) => c.name)).flatMap((n) => servicesOf(model, n)),
  };
  const f = model.serverFacts;
  const target: TargetFacts | undefined = f
    ? {
        portsInUse: f.portsInUse.map((p) => ({ port: p.port, protocol: p.protocol, ...(p.holder ? { holder: p.holder } : {}) })),
        ...(f.os ? { os: f.os } : {}),
        ...(f.dockerVersion ? { dockerVersion: f.dockerVersion } : {}),
        ...(f.composeVersion ? { composeVersion: f.composeVersion } : {}),
        ...(f.freeDiskGb !== undefined ? { freeDiskGb: f.freeDiskGb } : {}),
      }
    : undefined;
  return { intent, ...(target ? { target } : {}) };
}
