import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Value } from 'typebox/value';
import { CatalogueError } from './catalogue';
import { PlacesSchema, PROVISION_NAMES, ProviderSchema, type Place, type ProviderFile } from './providerSchema';
import { parseTemplate, templateNames, TemplateError } from './template';

/**
 * The providers a plan's server can run at, one YAML file per provider in `providers/`, with the places
 * people name in `providers/places.yaml`; read once at start and checked (ProviderSchema, the templates'
 * names). Adding a provider is adding one file. Like the products, the build checks them once and writes
 * CHECKED_PROVIDERS beside the bundled server; PROVIDERS_DIR overrides where they are read from.
 */

export const CHECKED_PROVIDERS = 'providers.json';
export const PLACES_FILE = 'places.yaml';

export type Provider = ProviderFile & { existing: boolean };

export interface ProviderCatalogue {
  providers: Record<string, Provider>;
  places: Place[];
}

export function providersDir(): string {
  const candidates = [
    process.env.PROVIDERS_DIR,
    process.argv[1] ? path.join(path.dirname(path.resolve(process.argv[1])), 'catalogue') : undefined,
    path.resolve('src/server/agents/catalogue/providers'),
  ].filter((d): d is string => Boolean(d));
  const found = candidates.find((d) => fs.existsSync(path.join(d, CHECKED_PROVIDERS)) || fs.existsSync(path.join(d, PLACES_FILE)));
  if (!found) throw new CatalogueError(`The provider catalogue is missing: none of ${candidates.join(', ')} holds ${CHECKED_PROVIDERS} or ${PLACES_FILE}`);
  return found;
}

/** The providers of a directory: the build's checked copy when it holds one, else every file read and checked. */
export function loadProviders(dir = providersDir()): ProviderCatalogue {
  const checked = path.join(dir, CHECKED_PROVIDERS);
  if (fs.existsSync(checked)) return JSON.parse(fs.readFileSync(checked, 'utf8')) as ProviderCatalogue;
  return readProviders(dir);
}

function readYaml(dir: string, file: string): unknown {
  try {
    return YAML.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  } catch (err) {
    throw new CatalogueError(`${file}: does not parse: ${(err as Error).message}`);
  }
}

const KNOWN_NAMES = new Set<string>([...PROVISION_NAMES, '-first', '-last']);

/** Every template of a provider parses and reads only names the renderer supplies. */
function checkTemplates(file: string, p: ProviderFile): void {
  const templates = [
    ...p.provision.steps.flatMap((s) => [s.description, ...s.commands.flatMap((c) => (typeof c === 'string' ? [c] : 'command' in c ? [c.command] : []))]),
    ...(p.volume ? [p.volume.device, ...p.volume.create] : []),
  ];
  for (const t of templates) {
    let names: Set<string>;
    try {
      names = templateNames(parseTemplate(t));
    } catch (err) {
      if (err instanceof TemplateError) throw new CatalogueError(`${file}: template ${JSON.stringify(t.slice(0, 60))}: ${err.message}`);
      throw err;
    }
    const unknown = [...names].filter((n) => !KNOWN_NAMES.has(n));
    if (unknown.length) throw new CatalogueError(`${file}: template ${JSON.stringify(t.slice(0, 60))} reads ${unknown.join(', ')}, which no plan supplies`);
  }
}

/** Every regular expression source of a file compiles. */
function checkPatterns(file: string, sources: string[]): void {
  for (const source of sources) {
    try {
      new RegExp(source);
    } catch (err) {
      throw new CatalogueError(`${file}: ${JSON.stringify(source)} is not a regular expression: ${(err as Error).message}`);
    }
  }
}

/** Reads and checks every provider file and the places of a directory; a bad file throws, naming the file and the field. */
export function readProviders(dir: string): ProviderCatalogue {
  const rawPlaces = readYaml(dir, PLACES_FILE);
  const badPlace = Value.Errors(PlacesSchema, rawPlaces)[0];
  if (badPlace) throw new CatalogueError(`${PLACES_FILE}: ${badPlace.instancePath || '/'} ${badPlace.message}`);
  const places = rawPlaces as Place[];
  checkPatterns(PLACES_FILE, places.flatMap((p) => p.words));
  const placeIds = new Set(places.map((p) => p.id));
  const providers: Record<string, Provider> = {};
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== PLACES_FILE).sort()) {
    const raw = readYaml(dir, file);
    const first = Value.Errors(ProviderSchema, raw)[0];
    if (first) throw new CatalogueError(`${file}: ${first.instancePath || '/'} ${first.message}`);
    const p = raw as ProviderFile;
    if (`${p.id}.yaml` !== file) throw new CatalogueError(`${file}: id ${p.id} does not match the file name`);
    if (p.disk === 'fixed' && p.sizes.some((s) => s.diskGb === undefined)) throw new CatalogueError(`${file}: disk is fixed, so every size says its diskGb`);
    if (p.volume && p.disk !== 'fixed') throw new CatalogueError(`${file}: a data volume is for a fixed disk (disk: fixed)`);
    const served = new Map<string, string>();
    for (const [region, ids] of Object.entries(p.regions ?? {})) {
      for (const id of ids) {
        if (!placeIds.has(id)) throw new CatalogueError(`${file}: region ${region} serves ${id}, which is not in ${PLACES_FILE}`);
        if (served.has(id)) throw new CatalogueError(`${file}: ${id} is served by both ${served.get(id)} and ${region}`);
        served.set(id, region);
      }
    }
    checkTemplates(file, p);
    checkPatterns(file, [...p.aliases, ...(p.regionCodes?.words ?? []), ...(p.sizeNames?.words ?? []), ...(p.guards ?? []).map((g) => g.pattern)]);
    providers[p.id] = { ...p, existing: p.existing ?? false };
  }
  const existing = Object.values(providers).filter((p) => p.existing);
  if (existing.length !== 1) throw new CatalogueError(`exactly one provider file says existing: true (the person's own server); ${existing.length ? existing.map((p) => p.id).join(', ') : 'none'} do`);
  return { providers, places };
}

/** For the build: checks the providers of the source tree and writes `<out>/providers.json`. Answers how many providers it holds. */
export function writeCheckedProviders(out: string, dir = path.resolve('src/server/agents/catalogue/providers')): number {
  const catalogue = readProviders(dir);
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, CHECKED_PROVIDERS), JSON.stringify(catalogue));
  return Object.keys(catalogue.providers).length;
}
