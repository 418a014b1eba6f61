import { parseDocument } from 'yaml';
import type { RepositoryLayout } from '../../../shared/repositoryLayout';
import { chooseDeployment, deploymentCandidates, type DeploymentCandidate } from './deploymentCandidates';
import { imageDefault, imageRepository, imageTag, publishedImages } from './publishedImages';
import type { RepositorySnapshot } from './repositorySource';

export type { RepositoryLayout };

/** Dockerfiles for tests, development, tooling and one-off seeding are not the application. */
const NOT_RUN = /(^|\/)(tests?|e2e|spec|\.devcontainer|docs?|examples?|seed[\w-]*)\/|\.(dev|test|e2e|playwright|ci)$|Dockerfile\.(dev|test|e2e|playwright|ci)/i;
const MANIFEST = /^(package\.json|requirements\.txt|pyproject\.toml|go\.mod|Gemfile|pom\.xml|Cargo\.toml|composer\.json|mix\.exs)$/;
const FULL_VERSION = /^v?\d+\.\d+\.\d+([-.+][0-9A-Za-z.-]+)?$/;
const SAMPLE_ENV = /^\.env\.(example|sample|template|dist)$|^(example|sample|template)\.env$/;

const exposed = (text: string): number[] =>
  [...text.matchAll(/^\s*EXPOSE\s+(.+)$/gim)].flatMap((m) => m[1]!.split(/\s+/).map((p) => Number(p.split('/')[0]))).filter((n) => Number.isInteger(n) && n > 0 && n < 65536);

/** The version the analysed branch declares (package.json, pyproject.toml, mix.exs), for pinning its published image. */
async function declaredVersion(snapshot: RepositorySnapshot): Promise<string | undefined> {
  const pkg = await snapshot.read('package.json');
  if (pkg) {
    try {
      const v = (JSON.parse(pkg) as { version?: unknown }).version;
      if (typeof v === 'string' && FULL_VERSION.test(v)) return v;
    } catch {
      // not JSON: no version from it
    }
  }
  const py = await snapshot.read('pyproject.toml');
  const pyVersion = py?.match(/^version\s*=\s*["']([^"']+)["']/m)?.[1];
  if (pyVersion && FULL_VERSION.test(pyVersion)) return pyVersion;
  return undefined;
}

/**
 * The release to pin the application's image to: the analysed branch when it is a version tag, else the
 * version the branch declares, written the way the authors' documented tag writes it (`v2.0.0`).
 */
function releaseTag(branch: string | undefined, declared: string | undefined, documentedTag: string | undefined): string | undefined {
  if (branch && FULL_VERSION.test(branch)) return branch;
  if (!declared) return undefined;
  const bare = declared.replace(/^v/, '');
  return documentedTag?.startsWith('v') ? `v${bare}` : bare;
}

/** Pins the application's images of a compose text to the release; notes what changed and what could not be pinned. */
function pinAppImages(text: string, published: string[], name: string | undefined, tag: string | undefined, reasons: string[]): string {
  const doc = parseDocument(text);
  const services = doc.toJS() as { services?: Record<string, { image?: unknown }> };
  for (const [service, s] of Object.entries(services.services ?? {})) {
    if (typeof s?.image !== 'string') continue;
    const written = s.image;
    const image = imageDefault(written);
    if (image !== written) {
      // The deployed stack names the image it runs, not a variable nobody sets on the server.
      doc.setIn(['services', service, 'image'], image);
      reasons.push(`${service}: ${written} runs ${image} when its variable is not set; the plan names that image`);
    }
    const repo = imageRepository(image);
    const last = repo.slice(repo.lastIndexOf('/') + 1);
    if (!published.includes(repo) && !(name && last === name.toLowerCase())) continue;
    const current = imageTag(image);
    if (current && FULL_VERSION.test(current) && (!tag || current === tag)) continue;
    if (tag) {
      const pinned = `${image.slice(0, image.length - (current ? current.length + 1 : 0))}:${tag}`;
      doc.setIn(['services', service, 'image'], pinned);
      reasons.push(`${service}: ${image} pinned to ${pinned}, the release of the analysed branch`);
    } else reasons.push(`${service}: ${image} is a floating tag (${current ?? 'latest'}); pin it to a release for repeatable deploys`);
  }
  return doc.toString();
}

/**
 * No production compose, but a published image and a development compose of backing services (Outline's
 * redis and postgres): the application runs its published image beside those services, reading the
 * repository's sample env file, on the port its Dockerfile exposes; the backing services stay private.
 */
function assemble(dev: DeploymentCandidate, image: string, appName: string, envSample: string | undefined, port: number | undefined): string {
  const doc = parseDocument(dev.text);
  const services = (doc.toJS() as { services: Record<string, unknown> }).services;
  for (const name of Object.keys(services)) doc.deleteIn(['services', name, 'ports']);
  doc.setIn(['services', appName], doc.createNode({
    image,
    restart: 'unless-stopped',
    ...(envSample ? { env_file: [envSample] } : {}),
    ...(port ? { ports: [`${port}:${port}`] } : {}),
    depends_on: Object.keys(services),
  }));
  return doc.toString();
}

export async function readLayout(snapshot: RepositorySnapshot, options: { branch?: string; name?: string; fullName?: string } = {}): Promise<RepositoryLayout> {
  const depth = (p: string): number => p.split('/').length - 1;
  const dockerfiles: RepositoryLayout['dockerfiles'] = [];
  for (const path of snapshot.files.filter((f) => depth(f) <= 2 && /(^|\/)(Dockerfile|Containerfile)$/.test(f) && !NOT_RUN.test(f)).sort()) {
    const text = await snapshot.read(path);
    if (text === undefined) continue;
    dockerfiles.push({ path, context: path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.', ports: [...new Set(exposed(text))] });
  }
  const published = await publishedImages(snapshot, options.fullName);
  const hasApp = dockerfiles.length > 0 || snapshot.files.some((f) => depth(f) <= 1 && MANIFEST.test(f.slice(f.lastIndexOf('/') + 1)));
  const candidates = await deploymentCandidates(snapshot, { files: snapshot.files, published, hasApp, name: options.name });
  const chosen = chooseDeployment(candidates);
  const layout: RepositoryLayout = {
    dockerfiles,
    ...(candidates.length ? { candidates: candidates.map(({ source, kind, reasons }) => ({ source, kind, reasons })) } : {}),
    ...(published.length ? { publishedImages: published } : {}),
  };
  const declared = await declaredVersion(snapshot);
  const envSample = snapshot.files.filter((f) => depth(f) === 0 && SAMPLE_ENV.test(f)).sort()[0];
  let compose: RepositoryLayout['compose'];
  if (chosen?.kind === 'production') {
    const reasons = [`${chosen.source}: ${chosen.reasons.join('; ')}`];
    const documentedTag = chosen.text.match(/image:\s*\S+:(v?\d[^\s"']*)/)?.[1];
    const text = pinAppImages(chosen.text, published, options.name, releaseTag(options.branch, declared, documentedTag), reasons);
    compose = { path: chosen.source, text, dir: chosen.dir, reasons };
  } else if (chosen && published.length && !chosen.runsApp) {
    const image = `${published[0]}:${releaseTag(options.branch, declared, undefined) ?? 'latest'}`;
    const appName = (options.name ?? published[0]!.slice(published[0]!.lastIndexOf('/') + 1)).toLowerCase().replace(/[^a-z0-9-]/g, '-');
    const text = assemble(chosen, image, appName, envSample, dockerfiles[0]?.ports[0]);
    compose = {
      path: chosen.source,
      text,
      dir: chosen.dir,
      reasons: [
        `No compose file of the repository runs the application for production (${chosen.source}: ${chosen.reasons.join('; ')}).`,
        `Assembled: the published image ${image}${envSample ? ` reading ${envSample}` : ''}, beside the backing services of ${chosen.source}, which stay private.`,
      ],
    };
  } else if (chosen) {
    // Only development files: the one that runs the application is still how its authors run it; where they
    // publish an image, that image replaces the build from source.
    const reasons = [`${chosen.source} is for development (${chosen.reasons.join('; ')}); it is the closest the repository has to a deployment.`];
    let text = chosen.text;
    if (published.length) {
      const doc = parseDocument(text);
      const image = `${published[0]}:${releaseTag(options.branch, declared, undefined) ?? 'latest'}`;
      for (const [name, s] of Object.entries((doc.toJS() as { services: Record<string, { build?: unknown }> }).services)) {
        if (s?.build === undefined) continue;
        doc.deleteIn(['services', name, 'build']);
        doc.setIn(['services', name, 'image'], image);
        reasons.push(`${name} runs the published image ${image} instead of a build from source.`);
      }
      text = doc.toString();
    }
    if (chosen.runsApp || !dockerfiles.length) compose = { path: chosen.source, text, dir: chosen.dir, reasons };
  }
  if (compose) {
    const floating = floatingImages(compose.text);
    if (floating.length) compose.reasons = [...(compose.reasons ?? []), `Floating image tags, which move under a redeploy: ${floating.join(', ')}. Pin them to releases for repeatable deploys.`];
    layout.compose = compose;
    const envFiles = await readEnvFiles(snapshot, compose, envSample);
    if (Object.keys(envFiles).length) layout.envFiles = envFiles;
  }
  return layout;
}

/** Images of a compose text whose tag names no exact release (`redis`, `louislam/uptime-kuma:2`, `plausible/analytics:v2.0`). */
function floatingImages(text: string): string[] {
  const services = (parseDocument(text).toJS() as { services?: Record<string, { image?: unknown; build?: unknown }> }).services ?? {};
  return Object.values(services)
    .map((s) => (typeof s?.image === 'string' && s.build === undefined ? imageDefault(s.image) : undefined))
    .filter((image): image is string => Boolean(image) && !image!.includes('@') && !FULL_VERSION.test(imageTag(image!)?.replace(/-[a-z][\w.-]*$/, '') ?? ''));
}

/** The env files the compose reads, by their path in the repository; a missing `.env` falls back to the sample beside it. */
async function readEnvFiles(snapshot: RepositorySnapshot, compose: NonNullable<RepositoryLayout['compose']>, envSample: string | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const services = ((parseDocument(compose.text).toJS() as { services?: Record<string, { env_file?: unknown }> }).services) ?? {};
  const dir = compose.dir ?? (compose.path.includes('/') ? compose.path.slice(0, compose.path.lastIndexOf('/')) : '.');
  for (const s of Object.values(services)) {
    const files = s?.env_file === undefined ? [] : Array.isArray(s.env_file) ? s.env_file : [s.env_file];
    for (const f of files) {
      const rel = typeof f === 'string' ? f : typeof (f as { path?: unknown })?.path === 'string' ? (f as { path: string }).path : undefined;
      if (!rel) continue;
      const path = `${dir}/${rel}`.split('/').filter((x) => x && x !== '.').join('/');
      const text = (await snapshot.read(path)) ?? (envSample && path.endsWith('.env') ? await snapshot.read(envSample) : undefined);
      if (text !== undefined) out[path] = text;
    }
  }
  return out;
}

/** Databases an ORM's schema or configuration names: Prisma's datasource provider, TypeORM's type, SQLAlchemy URLs. */
const ORM_DATABASES: Array<[RegExp, string]> = [
  [/^postgres(ql)?$|^cockroachdb$/, 'PostgreSQL'],
  [/^mysql$|^mariadb$/, 'MySQL'],
  [/^mongodb$/, 'MongoDB'],
  [/^sqlite$|^better-sqlite3$/, 'SQLite'],
  [/^(mssql|sqlserver)$/, 'SQL Server'],
];

const databaseOf = (word: string): string | undefined => ORM_DATABASES.find(([p]) => p.test(word.toLowerCase()))?.[1];

/**
 * ORM schemas as evidence of a database: `datasource db { provider = "postgresql" }` in a Prisma schema,
 * `type: 'postgres'` in a TypeORM data source or ormconfig, `create_engine("postgresql+psycopg://…")` or
 * an SQLAlchemy URL in Python code. Files are found by name, at most three folders down.
 */
export async function ormDatabases(snapshot: RepositorySnapshot): Promise<string[]> {
  const found = new Set<string>();
  const candidates = snapshot.files.filter((f) => f.split('/').length <= 4 && !/(^|\/)(node_modules|vendor|\.git)\//.test(f));
  for (const path of candidates.filter((f) => f.endsWith('.prisma')).slice(0, 5)) {
    const text = (await snapshot.read(path)) ?? '';
    const block = text.match(/datasource\s+\w+\s*\{([\s\S]*?)\}/)?.[1] ?? '';
    const provider = block.match(/provider\s*=\s*["']([\w-]+)["']/)?.[1];
    const db = provider && databaseOf(provider);
    if (db) found.add(db);
  }
  for (const path of candidates.filter((f) => /(^|\/)(ormconfig\.(json|js|ts|ya?ml)|data-?source\.(ts|js)|typeorm\.config\.(ts|js))$/i.test(f)).slice(0, 5)) {
    for (const m of ((await snapshot.read(path)) ?? '').matchAll(/["']?type["']?\s*[:=]\s*["']([\w-]+)["']/g)) {
      const db = databaseOf(m[1]!);
      if (db) found.add(db);
    }
  }
  for (const path of candidates.filter((f) => /(^|\/)(database|db|session|models|config|settings|alembic\/env)\.py$/.test(f)).slice(0, 10)) {
    for (const m of ((await snapshot.read(path)) ?? '').matchAll(/["'](postgres(?:ql)?|mysql|mariadb|sqlite|mssql)(?:\+\w+)?:\/\//g)) {
      const db = databaseOf(m[1]!);
      if (db) found.add(db);
    }
  }
  return [...found].sort();
}
