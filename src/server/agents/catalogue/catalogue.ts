import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Value } from 'typebox/value';
import type { Product } from './product';
import { ProductSchema, type ProductFile } from './schema';

/**
 * The catalogue of products the offline planner can deploy, one YAML file per product, read once at
 * start and checked against ProductSchema. Adding a product is adding one file to `products/`.
 *
 * Where the files are: next to the bundled server (`dist/server/catalogue`), or in the source tree when
 * the server runs from source (tsx, jest). CATALOGUE_DIR overrides both. `npm run build:server` checks
 * the YAML once and writes the result there as CHECKED_CATALOGUE, which a start only parses: reading
 * and checking 75 YAML files took about a tenth of a cold start.
 */

/** The catalogue as the build checked it (`writeCheckedCatalogue`): products by id, as JSON. */
export const CHECKED_CATALOGUE = 'products.json';

export class CatalogueError extends Error {}

export function catalogueDir(): string {
  const candidates = [
    process.env.CATALOGUE_DIR,
    process.argv[1] ? path.join(path.dirname(path.resolve(process.argv[1])), 'catalogue') : undefined,
    path.resolve('src/server/agents/catalogue/products'),
  ].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => fs.existsSync(path.join(d, CHECKED_CATALOGUE)) || fs.existsSync(path.join(d, 'postgres.yaml')));
  if (!found) throw new CatalogueError(`The product catalogue is missing: none of ${candidates.join(', ')} holds ${CHECKED_CATALOGUE} or postgres.yaml`);
  return found;
}

/** Options that make wget or curl send HEAD instead of GET. */
const HEAD_REQUEST = /(^|\s)(--spider|-I|--head)(\s|$)/;

/** Categories whose products hold credentials or personal data behind a login (a file's `sensitive` overrides). */
const SENSITIVE_CATEGORIES = new Set(['security', 'auth', 'ai', 'storage', 'productivity', 'communication']);

const HEALTHCHECK_DEFAULTS = { interval: '15s', timeout: '5s', retries: 5, start_period: '20s' };

function toProduct(p: ProductFile): Product {
  return {
    id: p.id,
    label: p.label,
    category: p.category,
    purpose: p.purpose,
    docs: p.docs,
    aliases: p.aliases,
    describedAs: p.describedAs ?? [],
    kindWords: p.kindWords ?? false,
    asksDomain: p.asksDomain ?? false,
    similar: p.similar ?? [],
    ...(p.versions ? { versions: p.versions } : {}),
    alternativeTo: p.alternativeTo ?? [],
    requires: (p.requires ?? []).map((r) => (Array.isArray(r) ? r[0]! : r)),
    needs: (p.requires ?? []).map((r) => (Array.isArray(r) ? r : [r])),
    unsupported: p.unsupported ?? {},
    files: p.files ?? [],
    ...(p.bootstrap ? { bootstrap: p.bootstrap } : {}),
    ...(p.proxy ? { proxy: p.proxy } : {}),
    gpu: p.gpu ?? false,
    defaultFor: p.defaultFor ?? {},
    apexRank: p.apexRank ?? 0,
    tls: p.tls,
    sensitive: p.sensitive ?? (p.tls === 'required' || SENSITIVE_CATEGORIES.has(p.category)),
    diskGb: p.diskGb,
    minCpus: p.minCpus ?? 1,
    secrets: (p.secrets ?? []).map((s) => ({ name: s.name, description: s.description, required: s.required ?? true, secret_type: s.secret_type ?? 'password' })),
    services: p.services.map((s) => ({ ...s, healthcheck: s.healthcheck ? { ...HEALTHCHECK_DEFAULTS, ...s.healthcheck } : undefined })),
  };
}

/**
 * The catalogue of a directory: the build's checked copy when it holds one, else every product file read
 * and checked (`readProducts`).
 */
export function loadCatalogue(dir = catalogueDir()): Record<string, Product> {
  const checked = path.join(dir, CHECKED_CATALOGUE);
  if (fs.existsSync(checked)) return JSON.parse(fs.readFileSync(checked, 'utf8')) as Record<string, Product>;
  return readProducts(dir);
}

/** Reads and checks every product file of a directory; a bad file throws, naming the file and the field. */
export function readProducts(dir: string): Record<string, Product> {
  const out: Record<string, Product> = {};
  const serviceOwners = new Map<string, string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const where = path.join(dir, file);
    let raw: unknown;
    try {
      raw = YAML.parse(fs.readFileSync(where, 'utf8'));
    } catch (err) {
      throw new CatalogueError(`${file}: does not parse: ${(err as Error).message}`);
    }
    const first = Value.Errors(ProductSchema, raw)[0];
    if (first) throw new CatalogueError(`${file}: ${first.instancePath || '/'} ${first.message}`);
    const product = raw as ProductFile;
    if (`${product.id}.yaml` !== file) throw new CatalogueError(`${file}: id ${product.id} does not match the file name`);
    for (const s of product.services) {
      if (!s.healthcheck && !s.noHealthcheck) throw new CatalogueError(`${file}: service ${s.name} needs a healthcheck or a noHealthcheck reason`);
      // A HEAD is not a GET: Caddy's admin API answers it 405, and the start step waited 10 minutes on it.
      if (s.healthcheck && HEAD_REQUEST.test(s.healthcheck.test.join(' '))) throw new CatalogueError(`${file}: service ${s.name}'s healthcheck sends HEAD (wget --spider, curl -I): use a GET (wget -q -O /dev/null, curl -fsS)`);
      const owner = serviceOwners.get(s.name);
      if (owner && owner !== product.id) throw new CatalogueError(`${file}: service name ${s.name} is already used by ${owner}`);
      serviceOwners.set(s.name, product.id);
    }
    out[product.id] = toProduct(product);
  }
  for (const c of Object.values(out)) {
    const uses = c.services.flatMap((s) => Object.keys(s.uses ?? {}));
    for (const ref of [...c.needs.flat(), ...(c.similar ?? []), ...uses, ...Object.entries(c.unsupported).flat().flatMap((x) => (typeof x === 'string' ? [x] : [x.use]))]) {
      if (!out[ref]) throw new CatalogueError(`${c.id}.yaml: refers to ${ref}, which is not in the catalogue`);
    }
  }
  return out;
}

/**
 * For the build (`npm run build:server`): reads and checks the product files of the source tree (a bad
 * one fails the build, naming the file and the field) and writes `<out>/products.json`, the catalogue
 * the bundled server reads at start. Answers how many products it holds.
 */
export function writeCheckedCatalogue(out: string, dir = path.resolve('src/server/agents/catalogue/products')): number {
  const products = readProducts(dir);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, CHECKED_CATALOGUE), JSON.stringify(products));
  return Object.keys(products).length;
}
