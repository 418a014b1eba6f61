import { parse as parseYaml } from 'yaml';
import { imageDefault, imageRepository, imageTag } from './publishedImages';
import type { RepositorySnapshot } from './repositorySource';

/**
 * Every way a repository shows to run it with Compose — its compose files and the compose blocks of its
 * README and installation docs — classified as production or development, with the reasons in words,
 * so the plan deploys the way its authors ship it and says which file it used and why.
 */

export type DeploymentKind = 'production' | 'development';

export interface DeploymentCandidate {
  /** A compose file's path, or `docs/install.md (block 2)` for a documented one. */
  source: string;
  /** The folder its relative paths are relative to ('.' for a documented block: the checkout). */
  dir: string;
  text: string;
  kind: DeploymentKind;
  /** Why it is that kind, in words a person can check. */
  reasons: string[];
  /** Whether a service of it runs the application (built from the checkout or its published image). */
  runsApp: boolean;
}

type Service = Record<string, unknown>;

const COMPOSE_FILE = /^(docker-)?compose([._-][A-Za-z0-9_.-]+)?\.ya?ml$/;
/** Any YAML file of a folder named for Compose is a compose file (miniflux's contrib/docker-compose/basic.yml). */
const COMPOSE_FOLDER_FILE = /(^|\/)(docker-)?compose\/[^/]+\.ya?ml$/;
const isComposeFile = (f: string): boolean => COMPOSE_FILE.test(f.slice(f.lastIndexOf('/') + 1)) || COMPOSE_FOLDER_FILE.test(f);
/**
 * Folders whose compose files are tooling for the authors: tests, dev containers, test environments.
 * `scripts/` and `examples/` are not among them: what a compose file there runs says what it is for
 * (memos ships its production compose as scripts/compose.yaml).
 */
const TOOLING_DIR = /(^|\/)(tests?|e2e|spec|\.devcontainer|\.github|fixtures)\//;
const DEV_NAME = /(^|[._-])(dev|devel|development|local|debug|test|testing|e2e|ci|override)([._-]|$)/i;
const INSTALL_DOC = /(^|\/)(readme|install[a-z-]*|deploy[a-z-]*|getting-started|quick-?start|setup|self-?host[a-z-]*|docker[a-z-]*|postgres|sqlite|production)\.mdx?$/i;
/** Images that catch mail for inspection instead of delivering it: development tools by their nature. */
const MAIL_CATCHERS = new Set(['axllent/mailpit', 'mailhog/mailhog', 'maildev/maildev', 'rnwood/smtp4dev', 'schickling/mailcatcher']);
const DEV_TAG = /^(dev|develop|development|nightly\d*|edge|canary|unstable|main|master)$/i;
const DEBUG_ENV: Array<[RegExp, RegExp]> = [
  [/^(LOG_LEVEL|LOGLEVEL|LOG|RUST_LOG|DJANGO_LOG_LEVEL)$/i, /^(debug|trace|verbose)$/i],
  [/^(DEBUG|APP_DEBUG|FLASK_DEBUG)$/i, /^(true|1|yes|on)$/i],
  [/^(NODE_ENV|RAILS_ENV|RACK_ENV|APP_ENV|FLASK_ENV|ENVIRONMENT|ENV|MIX_ENV)$/i, /^(dev|development|local|test)$/i],
];
const SOURCE_FILE = /\.(ts|tsx|js|jsx|mjs|py|rb|go|rs|java|kt|php|ex|exs|cs|vue|svelte)$/;

function environmentOf(s: Service): Array<[string, string]> {
  const env = s.environment;
  if (Array.isArray(env)) return env.filter((e): e is string => typeof e === 'string').map((e) => [e.split('=')[0]!, e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']);
  if (env && typeof env === 'object') return Object.entries(env as Record<string, unknown>).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]);
  return [];
}

function joinPath(dir: string, p: string): string {
  const out: string[] = [];
  for (const part of `${dir}/${p}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** Host paths a service bind-mounts that hold the repository's source code (a live-reload setup). */
function sourceMounts(s: Service, dir: string, files: string[]): string[] {
  const out: string[] = [];
  for (const v of Array.isArray(s.volumes) ? s.volumes : []) {
    const host = typeof v === 'string' ? v.split(':')[0]! : typeof (v as { source?: unknown }).source === 'string' ? String((v as { source: string }).source) : '';
    if (!host.startsWith('.')) continue;
    const folder = joinPath(dir, host);
    const holdsSource = folder === '' || files.some((f) => f.startsWith(`${folder}/`) && SOURCE_FILE.test(f));
    if (holdsSource) out.push(typeof v === 'string' ? v : `${host}:${String((v as { target?: unknown }).target ?? '')}`);
  }
  return out;
}

export interface ClassifyContext {
  files: string[];
  /** Image repositories the authors publish (release workflows), lower-case, without tags. */
  published: string[];
  /** Whether the repository holds an application of its own (a Dockerfile or a manifest). */
  hasApp: boolean;
  /** The repository's name (`uptime-kuma`), to recognise its own image in a documented compose. */
  name?: string;
}

const isAppImage = (image: string, ctx: ClassifyContext): boolean => {
  const repo = imageRepository(image);
  if (ctx.published.includes(repo)) return true;
  const last = repo.slice(repo.lastIndexOf('/') + 1);
  return Boolean(ctx.name && (last === ctx.name.toLowerCase() || repo.endsWith(`/${ctx.name.toLowerCase()}`)));
};

/** Classifies one compose document; undefined when it is not a compose file with services. */
export function classifyCompose(source: string, dir: string, text: string, ctx: ClassifyContext, documented: boolean): DeploymentCandidate | undefined {
  let doc: unknown;
  try {
    doc = parseYaml(text, { merge: true, maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  const services = (doc as { services?: unknown } | null)?.services;
  if (!services || typeof services !== 'object' || Array.isArray(services) || !Object.keys(services).length) return undefined;
  const dev: string[] = [];
  const prod: string[] = [];
  /** Debug settings: development on their own, a setting to turn off in a compose that runs the published release. */
  const debug: string[] = [];
  const fileName = source.replace(/ \(block \d+\)$/, '').slice(source.lastIndexOf('/') + 1);
  if (!documented && DEV_NAME.test(fileName.replace(/\.ya?ml$/, '').replace(/^(docker-)?compose/, ''))) dev.push(`named for development (${fileName})`);
  let runsApp = false;
  for (const [name, raw] of Object.entries(services as Record<string, Service>)) {
    const s = raw ?? {};
    const image = typeof s.image === 'string' ? imageDefault(s.image) : undefined;
    if (s.build !== undefined) {
      runsApp = true;
      const target = typeof s.build === 'object' && s.build ? (s.build as { target?: unknown }).target : undefined;
      if (typeof target === 'string' && DEV_NAME.test(target)) dev.push(`${name} builds the development target "${target}"`);
      else if (ctx.published.length) dev.push(`${name} is built from the source, though the authors publish ${ctx.published.join(', ')}`);
    }
    if (image) {
      const repo = imageRepository(image);
      const tag = imageTag(image);
      if (isAppImage(image, ctx)) {
        runsApp = true;
        if (tag && DEV_TAG.test(tag)) dev.push(`${name} runs a development image tag (${image})`);
        else if (s.build === undefined) prod.push(`${name} runs the published image ${image}`);
      }
      if (MAIL_CATCHERS.has(repo)) dev.push(`${name} is a mail catcher (${repo}): mail is kept for inspection, never delivered`);
    }
    for (const mount of sourceMounts(s, dir, ctx.files)) dev.push(`${name} mounts the source code into the container (${mount})`);
    for (const [key, value] of environmentOf(s)) {
      if (DEBUG_ENV.some(([k, v]) => k.test(key) && v.test(value.trim()))) debug.push(`${name} sets ${key}: ${value} (debug settings)`);
    }
  }
  if (!runsApp && ctx.hasApp) dev.push(`runs only backing services (${Object.keys(services).join(', ')}); the application itself is not in it`);
  if (documented) prod.push(`documented by the authors in ${source.replace(/ \(block \d+\)$/, '')}`);
  // miniflux's basic.yml runs its published image with DEBUG=1: an example to deploy, with logging to turn down.
  const runsRelease = prod.some((r) => r.includes(' runs the published image '));
  if (debug.length && (dev.length || !runsRelease)) dev.push(...debug);
  if (dev.length) return { source, dir, text, kind: 'development', reasons: dev, runsApp };
  return { source, dir, text, kind: 'production', reasons: [...prod, ...debug.map((d) => `${d}: turn it off for production`)], runsApp };
}

/** Fenced YAML blocks of a Markdown text. */
function fencedBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const open = lines[i]!.match(/^(\s*)(```+|~~~+)\s*(ya?ml|docker-compose|compose)?\s*(title=.*)?$/i);
    if (!open || !open[3]) continue;
    const fence = open[2]!;
    const body: string[] = [];
    for (i += 1; i < lines.length && !lines[i]!.trim().startsWith(fence); i += 1) body.push(lines[i]!.slice(Math.min(open[1]!.length, lines[i]!.length - lines[i]!.trimStart().length)));
    blocks.push(body.join('\n'));
  }
  return blocks;
}

const depth = (p: string): number => p.split('/').length - 1;
const MAX_BYTES = 64 * 1024;

/** Every compose file and documented compose block of a snapshot, classified. */
export async function deploymentCandidates(snapshot: RepositorySnapshot, ctx: ClassifyContext): Promise<DeploymentCandidate[]> {
  const out: DeploymentCandidate[] = [];
  const composeFiles = snapshot.files
    .filter((f) => depth(f) <= 2 && isComposeFile(f) && !TOOLING_DIR.test(f))
    .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))
    .slice(0, 12);
  for (const path of composeFiles) {
    const text = await snapshot.read(path, MAX_BYTES);
    const candidate = text === undefined ? undefined : classifyCompose(path, path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.', text, ctx, false);
    if (candidate) out.push(candidate);
  }
  const docs = snapshot.files
    .filter((f) => (depth(f) === 0 && /^readme\.mdx?$/i.test(f)) || (/^docs?\//i.test(f) && depth(f) <= 6 && INSTALL_DOC.test(f)))
    .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))
    .slice(0, 20);
  for (const path of docs) {
    const text = await snapshot.read(path, MAX_BYTES);
    if (!text) continue;
    fencedBlocks(text).forEach((block, n) => {
      const candidate = classifyCompose(`${path} (block ${n + 1})`, '.', block, ctx, true);
      if (candidate) out.push(candidate);
    });
  }
  return out;
}

/**
 * The candidate to deploy: production before development, one that runs the application before one
 * that does not, a file of the repository before a documented block, the shallower path first.
 */
export function chooseDeployment(candidates: DeploymentCandidate[]): DeploymentCandidate | undefined {
  const rank = (c: DeploymentCandidate): number[] => [c.kind === 'production' ? 0 : 1, c.runsApp ? 0 : 1, c.source.includes(' (block ') ? 1 : 0, depth(c.source)];
  return [...candidates].sort((a, b) => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return a.source.localeCompare(b.source);
  })[0];
}
