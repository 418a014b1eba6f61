import type { CatalogueView } from '../../../shared/stackOps';
import type { Product } from './product';

/**
 * What the stack operations (src/shared/stackOps.ts) need to know of the catalogue, built from its
 * files: the app receives the same view to apply the operations from its controls.
 */
export function catalogueView(products: Record<string, Product>): CatalogueView {
  return Object.fromEntries(
    Object.values(products).map((c) => {
      const hostPorts = c.services.flatMap((s) => (s.alwaysPublish ?? []).map((p) => Number(p.split(':')[0])));
      const ports = c.services.flatMap((s) => (s.internalPort ? [s.internalPort] : []));
      const web = c.services.filter((s) => s.webLabel !== undefined);
      return [
        c.id,
        {
          id: c.id,
          label: c.label,
          category: c.category,
          ports,
          needs: c.needs,
          proxy: c.category === 'proxy',
          hostPorts: [...new Set(hostPorts)],
          defaultFor: c.defaultFor,
          upstreams: web.flatMap((s) => (s.endpoints?.length ? s.endpoints.map((e) => e.name) : [s.webLabel || s.name])),
        },
      ];
    }),
  );
}
