import { parse as parseYaml } from 'yaml';
import type { RepositorySnapshot } from './repositorySource';

/**
 * The images a repository's authors publish, read from its release workflows: the `images:` of
 * docker/metadata-action, the `tags:` of a build-push action, and `docker push` / `docker tag` / `-t`
 * in run steps, with `${{ env.X }}` resolved from the workflow's env. Only repositories are kept
 * (`ghcr.io/acme/app`), never tags: the tag is chosen to match the analysed branch.
 */

const WORKFLOW = /^\.github\/workflows\/[^/]+\.ya?ml$/;
const IMAGE_REF = /^(?:[a-z0-9.-]+(?::\d+)?\/)?[a-z0-9._-]+(?:\/[a-z0-9._-]+)+$|^[a-z0-9._-]+\/[a-z0-9._-]+$/;

/**
 * The image a compose `image:` runs when its variable is not set: `${MINIFLUX_IMAGE:-miniflux/miniflux:latest}`
 * → `miniflux/miniflux:latest` (Compose's `:-` and `-` defaults); any other text unchanged.
 */
export function imageDefault(ref: string): string {
  const m = ref.trim().match(/^\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]+)\}$/);
  return m ? m[1]!.trim() : ref;
}

/** `ghcr.io/acme/app:1.2` → `ghcr.io/acme/app`; Docker Hub's implicit prefixes dropped. */
export function imageRepository(ref: string): string {
  const noDigest = ref.split('@')[0]!;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const repo = colon > slash ? noDigest.slice(0, colon) : noDigest;
  return repo.toLowerCase().replace(/^(docker\.io|index\.docker\.io)\//, '').replace(/^library\//, '');
}

/** The tag of an image reference, undefined when it has none (`latest` implied) or is pinned by digest. */
export function imageTag(ref: string): string | undefined {
  if (ref.includes('@')) return undefined;
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? ref.slice(colon + 1) : undefined;
}

function envOf(node: unknown): Record<string, string> {
  const env = (node as { env?: unknown } | null)?.env;
  if (!env || typeof env !== 'object') return {};
  return Object.fromEntries(Object.entries(env as Record<string, unknown>).filter(([, v]) => typeof v === 'string' || typeof v === 'number').map(([k, v]) => [k, String(v)]));
}

/** `owner/name` of the repository, for `${{ github.repository }}` and `${{ github.repository_owner }}`. */
type GithubContext = { repository?: string; repository_owner?: string };

function resolveExpressions(text: string, env: Record<string, string>, github: GithubContext = {}): string {
  return text
    .replace(/\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (whole, name: string) => env[name] ?? whole)
    .replace(/\$\{\{\s*github\.(repository|repository_owner)\s*\}\}/g, (whole, name: keyof GithubContext) => github[name]?.toLowerCase() ?? whole);
}

/** Image references in one value: one per line or comma, each a word without a template left in it. */
function refsIn(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim().replace(/^["']|["']$/g, ''))
    .filter((s) => s && !s.includes('${{') && !s.includes('=') && IMAGE_REF.test(imageRepository(s)));
}

/** Words after `docker push`, `docker tag X`, `-t`/`--tag` in a shell line. */
function refsInRun(run: string, env: Record<string, string>, github: GithubContext): string[] {
  const out: string[] = [];
  const words = resolveExpressions(run, env, github).split(/\s+/);
  for (let i = 0; i < words.length - 1; i += 1) {
    const w = words[i]!;
    if ((w === 'push' && words[i - 1] === 'docker') || w === '-t' || w === '--tag') out.push(...refsIn(words[i + 1]!));
    if (w === 'tag' && words[i - 1] === 'docker' && words[i + 2]) out.push(...refsIn(words[i + 2]!));
  }
  return out;
}

function walkSteps(doc: unknown, topEnv: Record<string, string>, out: Set<string>, github: GithubContext): void {
  const jobs = (doc as { jobs?: unknown } | null)?.jobs;
  if (!jobs || typeof jobs !== 'object') return;
  for (const job of Object.values(jobs as Record<string, unknown>)) {
    const jobEnv = { ...topEnv, ...envOf(job) };
    const steps = (job as { steps?: unknown } | null)?.steps;
    if (!Array.isArray(steps)) continue;
    for (const step of steps as Array<Record<string, unknown>>) {
      const env = { ...jobEnv, ...envOf(step) };
      const uses = typeof step.uses === 'string' ? step.uses : '';
      const withBlock = (step.with ?? {}) as Record<string, unknown>;
      if (/docker\/metadata-action/.test(uses) && typeof withBlock.images === 'string') {
        for (const line of resolveExpressions(withBlock.images, env, github).split('\n')) refsIn(line.split(',')[0] ?? '').forEach((r) => out.add(imageRepository(r)));
      }
      if (/build-push-action/.test(uses) && typeof withBlock.tags === 'string' && withBlock.push !== false && withBlock.push !== 'false') {
        refsIn(resolveExpressions(withBlock.tags, env, github)).forEach((r) => out.add(imageRepository(r)));
      }
      if (typeof step.run === 'string') refsInRun(step.run, env, github).forEach((r) => out.add(imageRepository(r)));
    }
  }
}

/** Repositories of the images the repository's workflows publish, sorted; `fullName` (`owner/name`) resolves `${{ github.repository… }}`. */
export async function publishedImages(snapshot: RepositorySnapshot, fullName?: string): Promise<string[]> {
  const out = new Set<string>();
  const github: GithubContext = fullName?.includes('/') ? { repository: fullName, repository_owner: fullName.slice(0, fullName.indexOf('/')) } : {};
  for (const path of snapshot.files.filter((f) => WORKFLOW.test(f)).slice(0, 40)) {
    const text = await snapshot.read(path);
    if (!text || !/docker|ghcr|image/i.test(text)) continue;
    let doc: unknown;
    try {
      doc = parseYaml(text, { maxAliasCount: 100 });
    } catch {
      continue;
    }
    walkSteps(doc, envOf(doc), out, github);
  }
  // A base or builder image is published to build the application's, not to run it.
  return [...out].filter((r) => !/[-_/](base|builder|build|cache|ci)$/.test(r)).sort();
}
