import YAML from 'yaml';
import type { RepositoryLayout } from '../../../shared/repositoryLayout';
import { keepPrivate } from './composeExposure';
import { sealLiterals } from './composeLiterals';
import { PRODUCTS, type Healthcheck, type ServiceSpec } from './knowledge';

/**
 * A repository's own compose file, made deployable as it is: anchors and merge keys resolved, the
 * services of no profile (plus the `cpu` profile, what a plain server has) kept, paths into the
 * repository rebased onto its checkout (`./app/…`), unpinned images the catalogue knows pinned to its
 * tag, and each service marked for what can be checked: a healthcheck, none (`x-no-healthcheck`), or a
 * task that runs once (`x-one-shot`). Nothing else is changed: its images, commands and ports stay.
 */

export type { RepositoryLayout };

export interface AdoptedCompose {
  compose: Record<string, unknown>;
  services: ServiceSpec[];
  /** Variables the file interpolates or passes through, with whether it has a default. */
  variables: Array<{ name: string; required: boolean }>;
  /** Services that build from the checkout. */
  builds: string[];
  notes: string[];
}

type Service = Record<string, unknown>;

const CHECKOUT = './app';
/** The id of the stand-in component that holds a repository compose file's services. */
export const REPOSITORY_COMPONENT = 'repository';
const ONE_SHOT_NAME = /(^|[-_])(init|import|pull|seed|migrat\w*|setup|bootstrap)([-_]|$)/;

/**
 * A path relative to the compose file, as seen from the stack folder (where the checkout is `app/`).
 * `file` says the value is always a path (env_file, build context), so `plausible-conf.env` is one too;
 * for volumes only `./x` and `../x` are paths (`data` is a named volume).
 */
function rebase(dir: string, p: string, file = false): string {
  if (p === '.env' || p.startsWith('/') || (!file && !p.startsWith('.'))) return p;
  const parts = `${dir}/${p}`.split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return [CHECKOUT, ...out].join('/');
}

const catalogueImages = (): Map<string, string> => {
  const images = new Map<string, string>();
  for (const c of Object.values(PRODUCTS)) for (const s of c.services) if (s.image !== 'build') images.set(s.image.slice(0, s.image.lastIndexOf(':')), s.image);
  return images;
};

const repoOf = (image: string): string => image.replace(/^docker\.io\//, '').replace(/^library\//, '').replace(/:[^/:]*$/, '');
const tagOf = (image: string): string | undefined => (image.includes('@') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1]);

/** Names the file interpolates (`${X}`, `${X:-d}`, `${X:?e}`, `$X`) or passes through (`- X` in an environment list). */
function variablesOf(text: string, services: Record<string, Service>): AdoptedCompose['variables'] {
  const out = new Map<string, boolean>();
  for (const m of text.matchAll(/(?<!\$)\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+]?)([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g)) {
    const name = m[1] ?? m[4]!;
    const hasDefault = m[2] === ':-' || m[2] === '-' || m[2] === ':+' || m[2] === '+';
    out.set(name, (out.get(name) ?? false) || !hasDefault);
  }
  for (const s of Object.values(services)) {
    if (Array.isArray(s.environment)) for (const e of s.environment) if (typeof e === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e)) out.set(e, true);
  }
  return [...out].map(([name, required]) => ({ name, required }));
}

/** The catalogued product whose image a service runs (any tag), to size it and to name it in the documents. */
function catalogued(image: string): { label: string; service: ServiceSpec } | undefined {
  for (const c of Object.values(PRODUCTS)) {
    const service = c.services.find((x) => x.image !== 'build' && repoOf(x.image) === repoOf(image));
    if (service) return { label: c.label, service };
  }
  return undefined;
}

/** What the catalogue calls the product an image runs ('PostgreSQL' for postgres:16.4), if it knows it. */
export const catalogueLabel = (image: string): string | undefined => catalogued(image)?.label;

/** The repository's healthcheck in the planner's shape (the compose file keeps its own). */
const healthcheckOf = (h: Record<string, unknown>): Healthcheck => ({
  test: Array.isArray(h.test) ? h.test.map(String) : ['CMD-SHELL', String(h.test ?? '')],
  interval: String(h.interval ?? '30s'),
  timeout: String(h.timeout ?? '30s'),
  retries: Number(h.retries ?? 3),
  start_period: String(h.start_period ?? '0s'),
});

/** A URL the application advertises as its own address, written for the author's machine. */
const LOCAL_URL = /^(https?):\/\/(?:localhost|127\.0\.0\.1|0\.0\.0\.0)(?::(\d+))?(\/.*)?$/;

/**
 * Docmost's `APP_URL: http://localhost:3000` on a service publishing 3000: on the server, the address people
 * open is the server's on that port, so links, redirects and cookies the application builds from it work;
 * the SERVER_HOST secret holds that address, as for the catalogue's products without a domain.
 */
function advertiseServerAddress(name: string, s: Service, ports: string[], notes: string[]): void {
  const env = s.environment;
  if (!env || typeof env !== 'object' || Array.isArray(env)) return;
  const publicPorts = new Set(ports.map((p) => p.split(':')).filter((parts) => parts.length === 2 || (parts.length === 3 && !/^(127\.|localhost$|\[?::1)/.test(parts[0]!))).map((parts) => parts.at(-2)!));
  const changed: string[] = [];
  for (const [key, value] of Object.entries(env as Record<string, unknown>)) {
    const m = typeof value === 'string' ? value.match(LOCAL_URL) : null;
    const port = m ? m[2] ?? (m[1] === 'https' ? '443' : '80') : undefined;
    if (!m || !port || !publicPorts.has(port)) continue;
    (env as Record<string, unknown>)[key] = `http://\${SERVER_HOST}:${port}${m[3] ?? ''}`;
    changed.push(key);
  }
  if (changed.length) notes.push(`${name}: ${changed.join(', ')} named the author's machine (localhost); set to the server's address on the published port, from the SERVER_HOST secret.`);
}

/**
 * `envFiles` are the texts of the env files the compose reads (RepositoryLayout.envFiles): their
 * variables join each service's environment, so they work where compose runs, with literal passwords and
 * placeholders sealed as User Secrets like the compose file's own.
 */
export function adoptRepositoryCompose(layout: Required<Pick<RepositoryLayout, 'compose'>>['compose'], envFiles: Record<string, string> = {}): AdoptedCompose {
  const parsed = YAML.parse(layout.text, { merge: true, maxAliasCount: 200 }) as Record<string, unknown> | null;
  const dir = layout.dir ?? (layout.path.includes('/') ? layout.path.slice(0, layout.path.lastIndexOf('/')) : '.');
  const sealed = sealLiterals(parsed, dir, envFiles);
  const doc = sealed.doc;
  const all = (doc?.services ?? {}) as Record<string, Service>;
  const notes: string[] = [...(layout.reasons ?? []), ...sealed.notes, ...keepPrivate((doc?.services ?? {}) as Record<string, Service>)];
  const kept = Object.entries(all).filter(([, s]) => !Array.isArray(s.profiles) || (s.profiles as string[]).includes('cpu'));
  const left = Object.keys(all).filter((n) => !kept.some(([k]) => k === n));
  if (left.length) notes.push(`From the repository's ${layout.path}, these services of optional profiles are left out: ${left.join(', ')}.`);
  const keptNames = new Set(kept.map(([n]) => n));
  const images = catalogueImages();
  const completed = new Set<string>();
  for (const [, s] of kept) {
    const deps = s.depends_on;
    if (deps && !Array.isArray(deps)) for (const [d, spec] of Object.entries(deps as Record<string, { condition?: string }>)) if (spec?.condition === 'service_completed_successfully') completed.add(d);
  }
  const services: Record<string, Service> = {};
  const specs: ServiceSpec[] = [];
  const builds: string[] = [];
  for (const [name, original] of kept) {
    const s: Service = { ...original };
    delete s.profiles;
    if (s.build !== undefined) {
      const build = typeof s.build === 'string' ? { context: s.build } : { ...(s.build as Record<string, unknown>) };
      build.context = rebase(dir, String(build.context ?? '.'), true);
      s.build = build;
      builds.push(name);
    }
    if (typeof s.image === 'string' && s.build === undefined) {
      const tag = tagOf(s.image);
      const pinned = images.get(repoOf(s.image));
      if ((!tag || tag === 'latest') && pinned) {
        notes.push(`${name}: ${s.image} pinned to ${pinned}, the catalogue's tag.`);
        s.image = pinned;
      } else if (!tag || tag === 'latest') notes.push(`${name}: ${s.image} is not pinned to a version in the repository; pin it there for repeatable deploys.`);
    }
    if (Array.isArray(s.volumes)) {
      s.volumes = s.volumes.map((v) => {
        if (typeof v === 'string') {
          const [source, ...rest] = v.split(':');
          return [rebase(dir, source!), ...rest].join(':');
        }
        const long = { ...(v as Record<string, unknown>) };
        if (long.type === 'bind' && typeof long.source === 'string') long.source = rebase(dir, long.source);
        return long;
      });
    }
    if (s.env_file !== undefined) {
      // Compose v1 reads only paths: `{path, required}` becomes its path.
      const files = (Array.isArray(s.env_file) ? s.env_file : [s.env_file]) as Array<string | { path: string }>;
      s.env_file = files.map((f) => rebase(dir, typeof f === 'string' ? f : f.path, true));
    }
    if (s.depends_on && !Array.isArray(s.depends_on)) {
      s.depends_on = Object.fromEntries(
        Object.entries(s.depends_on as Record<string, Record<string, unknown>>)
          .filter(([d]) => keptNames.has(d))
          .map(([d, spec]) => [d, spec?.condition ? { condition: spec.condition } : {}]),
      );
    } else if (Array.isArray(s.depends_on)) s.depends_on = (s.depends_on as string[]).filter((d) => keptNames.has(d));
    const oneShot = completed.has(name) || (ONE_SHOT_NAME.test(name) && !s.ports);
    if (oneShot) s['x-one-shot'] = 'runs once and exits; checked for exit code 0';
    else if (!s.healthcheck) s['x-no-healthcheck'] = "the repository's compose file defines none; checked for running";
    services[name] = s;
    const ports = (Array.isArray(s.ports) ? s.ports : []).map((p) => (typeof p === 'object' && p ? `${(p as { published?: unknown }).published ?? ''}:${(p as { target?: unknown }).target}` : String(p)));
    advertiseServerAddress(name, s, ports, notes);
    const known = typeof s.image === 'string' ? catalogued(s.image)?.service : undefined;
    const deps = Array.isArray(s.depends_on) ? (s.depends_on as string[]) : Object.keys((s.depends_on as object | undefined) ?? {});
    // Named volumes hold the stack's state: the deploy backs them up (a catalogued database by its dump).
    const namedVolumes = (Array.isArray(s.volumes) ? s.volumes : []).flatMap((v): string[] => {
      if (typeof v === 'string') {
        const [source, target] = v.split(':');
        return source && target && !/^[./~$]/.test(source) ? [`${source}:${target}`] : [];
      }
      const long = v as { type?: unknown; source?: unknown; target?: unknown };
      return long.type === 'volume' && typeof long.source === 'string' && typeof long.target === 'string' ? [`${long.source}:${long.target}`] : [];
    });
    specs.push({
      name,
      image: s.build !== undefined ? 'build' : String(s.image ?? ''),
      ...(namedVolumes.length ? { volumes: namedVolumes } : {}),
      ...(known?.backup && namedVolumes.length && !oneShot ? { backup: known.backup } : {}),
      ...(ports.length ? { publish: ports } : {}),
      ...(s.healthcheck ? { healthcheck: healthcheckOf(s.healthcheck as Record<string, unknown>) } : { noHealthcheck: String(s['x-one-shot'] ?? s['x-no-healthcheck']) }),
      networks: [],
      memoryMb: known?.memoryMb ?? 256,
      ...(deps.length ? { dependsOn: deps } : {}),
      ...(ports.length ? { webLabel: name } : {}),
    });
  }
  const compose: Record<string, unknown> = { services };
  for (const key of ['volumes', 'networks', 'configs', 'secrets']) if (doc?.[key]) compose[key] = doc[key];
  return { compose, services: specs, variables: variablesOf(YAML.stringify({ services }), services), builds, notes };
}
