import { parse as parseYaml } from 'yaml';
import { ormDatabases, readLayout, type RepositoryLayout } from './repositoryLayout';
import type { RepositorySnapshot } from './repositorySource';

/**
 * Reads what matters for deploying a repository from one branch's files: manifests (package.json,
 * requirements.txt, pyproject.toml, go.mod, Gemfile, pom.xml, Cargo.toml, composer.json), Dockerfiles,
 * compose files, CI files and `.env.example`. Only facts about the code come out; nothing here sees the
 * person's environment values.
 */
export interface Inspection {
  /** e.g. { language: 'TypeScript', frameworks: ['Express'], databases: ['PostgreSQL'], ... } */
  technology_stack: Record<string, unknown>;
  /** The deployment-relevant files that were read, in a stable order. */
  files: string[];
  /** Variable names of `.env.example` and its kin. */
  env_example_names: string[];
  /** The repository's compose file and Dockerfiles, for a plan that builds and runs what the repository has. */
  layout: RepositoryLayout;
}

const MAX_FILES_READ = 80;

type Kind = 'manifest' | 'dockerfile' | 'compose' | 'ci' | 'env-example';

function kindOf(p: string): Kind | undefined {
  const base = p.slice(p.lastIndexOf('/') + 1);
  const depth = p.split('/').length - 1;
  if (/(^|\/)(node_modules|vendor|\.git)\//.test(p)) return undefined;
  if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(p) || p === '.gitlab-ci.yml' || p === '.circleci/config.yml' || p === 'Jenkinsfile' || p === 'bitbucket-pipelines.yml') return 'ci';
  if (depth > 2) return undefined;
  if (/^(package\.json|requirements(-[a-z]+)?\.txt|pyproject\.toml|go\.mod|Gemfile|pom\.xml|Cargo\.toml|composer\.json)$/.test(base)) return 'manifest';
  if (/^(Dockerfile(\.[A-Za-z0-9_-]+)?|[A-Za-z0-9_-]+\.Dockerfile|Containerfile)$/.test(base)) return 'dockerfile';
  if (/^(docker-)?compose(\.[A-Za-z0-9_-]+)?\.ya?ml$/.test(base)) return 'compose';
  if (/^\.env\.(example|sample|template|dist)$/.test(base)) return 'env-example';
  return undefined;
}

/** Dependency names (lower-case) to what they tell about the stack. */
const DEPENDENCY_FACTS: Array<[RegExp, 'frameworks' | 'databases' | 'services', string]> = [
  [/^express$/, 'frameworks', 'Express'],
  [/^fastify$/, 'frameworks', 'Fastify'],
  [/^koa$/, 'frameworks', 'Koa'],
  [/^@nestjs\/core$/, 'frameworks', 'NestJS'],
  [/^next$/, 'frameworks', 'Next.js'],
  [/^nuxt$/, 'frameworks', 'Nuxt'],
  [/^react$/, 'frameworks', 'React'],
  [/^vue$/, 'frameworks', 'Vue'],
  [/^@angular\/core$/, 'frameworks', 'Angular'],
  [/^svelte$|^@sveltejs\/kit$/, 'frameworks', 'Svelte'],
  [/^@hapi\/hapi$/, 'frameworks', 'hapi'],
  [/^django$/, 'frameworks', 'Django'],
  [/^flask$/, 'frameworks', 'Flask'],
  [/^fastapi$/, 'frameworks', 'FastAPI'],
  [/^gunicorn$/, 'frameworks', 'Gunicorn'],
  [/^uvicorn$/, 'frameworks', 'Uvicorn'],
  [/^celery$/, 'services', 'Celery workers'],
  [/^rails$/, 'frameworks', 'Rails'],
  [/^sinatra$/, 'frameworks', 'Sinatra'],
  [/^sidekiq$/, 'services', 'Sidekiq workers'],
  [/^puma$/, 'frameworks', 'Puma'],
  [/^github\.com\/gin-gonic\/gin$/, 'frameworks', 'Gin'],
  [/^github\.com\/labstack\/echo(\/v\d+)?$/, 'frameworks', 'Echo'],
  [/^github\.com\/gofiber\/fiber(\/v\d+)?$/, 'frameworks', 'Fiber'],
  [/^github\.com\/go-chi\/chi(\/v\d+)?$/, 'frameworks', 'chi'],
  [/^spring-boot-starter-web(flux)?$/, 'frameworks', 'Spring Boot'],
  [/^quarkus-core$/, 'frameworks', 'Quarkus'],
  [/^actix-web$/, 'frameworks', 'Actix Web'],
  [/^axum$/, 'frameworks', 'Axum'],
  [/^rocket$/, 'frameworks', 'Rocket'],
  [/^laravel\/framework$/, 'frameworks', 'Laravel'],
  [/^symfony\/framework-bundle$/, 'frameworks', 'Symfony'],
  [/^(pg|postgres|pg-promise|psycopg2(-binary)?|psycopg|asyncpg|github\.com\/jackc\/pgx(\/v\d+)?|github\.com\/lib\/pq|postgresql|tokio-postgres|r2dbc-postgresql)$/, 'databases', 'PostgreSQL'],
  [/^(mysql|mysql2|mysqlclient|pymysql|github\.com\/go-sql-driver\/mysql|mysql-connector-j|mysql-connector-java|mysql_async|mariadb)$/, 'databases', 'MySQL'],
  [/^(mongodb|mongoose|pymongo|motor|go\.mongodb\.org\/mongo-driver|mongoid|mongodb-driver-sync)$/, 'databases', 'MongoDB'],
  [/^(sqlite3|better-sqlite3|rusqlite)$/, 'databases', 'SQLite'],
  [/^(redis|ioredis|github\.com\/redis\/go-redis(\/v\d+)?|github\.com\/go-redis\/redis(\/v\d+)?|spring-boot-starter-data-redis|predis\/predis)$/, 'services', 'Redis'],
  [/^(bull|bullmq)$/, 'services', 'Redis'],
  [/^(amqplib|pika|aio-pika|bunny|spring-boot-starter-amqp|lapin|php-amqplib\/php-amqplib)$/, 'services', 'RabbitMQ'],
  [/^(kafkajs|kafka-python|confluent-kafka|github\.com\/segmentio\/kafka-go|spring-kafka|rdkafka)$/, 'services', 'Kafka'],
  [/^(@elastic\/elasticsearch|elasticsearch)$/, 'services', 'Elasticsearch'],
  [/^(prisma|@prisma\/client)$/, 'frameworks', 'Prisma'],
  [/^(typeorm)$/, 'frameworks', 'TypeORM'],
  [/^(sqlalchemy)$/, 'frameworks', 'SQLAlchemy'],
];

/** Container images (repository part, lower-case) to the service they run. */
const IMAGE_FACTS: Array<[RegExp, 'databases' | 'services', string]> = [
  [/(^|\/)(postgres|postgis\/postgis|timescale\/timescaledb)$/, 'databases', 'PostgreSQL'],
  [/(^|\/)(mysql|mariadb)$/, 'databases', 'MySQL'],
  [/(^|\/)mongo$/, 'databases', 'MongoDB'],
  [/(^|\/)(redis|valkey\/valkey)$/, 'services', 'Redis'],
  [/(^|\/)rabbitmq$/, 'services', 'RabbitMQ'],
  [/(^|\/)(kafka|bitnami\/kafka|confluentinc\/cp-kafka)$/, 'services', 'Kafka'],
  [/(^|\/)(elasticsearch|elasticsearch\/elasticsearch)$/, 'services', 'Elasticsearch'],
  [/(^|\/)nginx$/, 'services', 'Nginx'],
  [/(^|\/)(caddy)$/, 'services', 'Caddy'],
  [/(^|\/)traefik$/, 'services', 'Traefik'],
];

interface Collected {
  languages: Set<string>;
  frameworks: Set<string>;
  databases: Set<string>;
  services: Set<string>;
  runtimes: Set<string>;
  packageManagers: Set<string>;
  baseImages: Set<string>;
  ports: Set<number>;
  composeServices: Set<string>;
  ci: Set<string>;
  buildCommands: Set<string>;
  startCommands: Set<string>;
}

function addDependencies(c: Collected, names: Iterable<string>): void {
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    for (const [pattern, key, value] of DEPENDENCY_FACTS) if (pattern.test(name)) c[key].add(value);
  }
}

function addImage(c: Pick<Collected, 'databases' | 'services'>, image: string): void {
  const repo = image.trim().toLowerCase().replace(/^docker\.io\//, '').replace(/^library\//, '').split('@')[0]!.replace(/:[^/]*$/, '');
  for (const [pattern, key, value] of IMAGE_FACTS) if (pattern.test(repo)) c[key].add(value);
}

const tryJson = (text: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const keysOf = (v: unknown): string[] => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);

/** Table bodies of a TOML file (`[name]` → its lines), enough for dependency lists. */
function tomlTables(text: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  let current = '';
  tables.set(current, []);
  for (const line of text.split(/\r?\n/)) {
    const header = line.match(/^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$/);
    if (header) {
      current = header[1]!;
      if (!tables.has(current)) tables.set(current, []);
    } else tables.get(current)!.push(line);
  }
  return tables;
}

const PEP508_NAME = /^\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)/;

function inspectManifest(c: Collected, path: string, text: string, files: string[]): void {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === 'package.json') {
    const pkg = tryJson(text);
    if (!pkg) return;
    const deps = [...keysOf(pkg.dependencies), ...keysOf(pkg.devDependencies)];
    addDependencies(c, deps);
    const ts = deps.includes('typescript') || files.includes('tsconfig.json');
    c.languages.add(ts ? 'TypeScript' : 'JavaScript');
    const engines = pkg.engines as Record<string, unknown> | undefined;
    c.runtimes.add(typeof engines?.node === 'string' ? `Node.js ${engines.node}` : 'Node.js');
    const dir = path.includes('/') ? `${path.slice(0, path.lastIndexOf('/'))}/` : '';
    if (files.includes(`${dir}pnpm-lock.yaml`)) c.packageManagers.add('pnpm');
    else if (files.includes(`${dir}yarn.lock`)) c.packageManagers.add('yarn');
    else if (files.includes(`${dir}bun.lockb`) || files.includes(`${dir}bun.lock`)) c.packageManagers.add('bun');
    else c.packageManagers.add('npm');
    const scripts = (pkg.scripts ?? {}) as Record<string, unknown>;
    if (typeof scripts.build === 'string') c.buildCommands.add('npm run build');
    if (typeof scripts.start === 'string') c.startCommands.add('npm start');
    return;
  }
  if (/^requirements(-[a-z]+)?\.txt$/.test(base)) {
    c.languages.add('Python');
    c.packageManagers.add('pip');
    addDependencies(
      c,
      text
        .split(/\r?\n/)
        .filter((l) => l.trim() && !/^\s*(#|-)/.test(l))
        .map((l) => l.match(PEP508_NAME)?.[1] ?? ''),
    );
    return;
  }
  if (base === 'pyproject.toml') {
    c.languages.add('Python');
    const tables = tomlTables(text);
    const names: string[] = [];
    const project = (tables.get('project') ?? []).join('\n');
    const list = project.match(/dependencies\s*=\s*\[([\s\S]*?)\]/);
    if (list) for (const item of list[1]!.matchAll(/["']([^"']+)["']/g)) names.push(item[1]!.match(PEP508_NAME)?.[1] ?? '');
    for (const [name, lines] of tables) {
      if (/^tool\.poetry\.(dev-)?dependencies$|^tool\.poetry\.group\.[^.]+\.dependencies$/.test(name)) {
        for (const l of lines) names.push(l.match(/^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*=/)?.[1] ?? '');
      }
    }
    const python = project.match(/requires-python\s*=\s*["']([^"']+)["']/)?.[1];
    if (python) c.runtimes.add(`Python ${python}`);
    c.packageManagers.add(tables.has('tool.poetry') ? 'Poetry' : files.includes('uv.lock') ? 'uv' : 'pip');
    addDependencies(c, names);
    return;
  }
  if (base === 'go.mod') {
    c.languages.add('Go');
    const version = text.match(/^go\s+([0-9.]+)/m)?.[1];
    c.runtimes.add(version ? `Go ${version}` : 'Go');
    c.packageManagers.add('Go modules');
    const names: string[] = [];
    for (const m of text.matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]{2,}\/[^\s]+)\s+v[0-9]/gm)) names.push(m[1]!);
    addDependencies(c, names);
    return;
  }
  if (base === 'Gemfile') {
    c.languages.add('Ruby');
    c.packageManagers.add('Bundler');
    const version = text.match(/^\s*ruby\s+["']([^"']+)["']/m)?.[1];
    c.runtimes.add(version ? `Ruby ${version}` : 'Ruby');
    addDependencies(c, [...text.matchAll(/^\s*gem\s+["']([^"']+)["']/gm)].map((m) => m[1]!));
    return;
  }
  if (base === 'pom.xml') {
    c.languages.add(text.includes('kotlin-maven-plugin') ? 'Kotlin' : 'Java');
    c.packageManagers.add('Maven');
    const version = text.match(/<(?:java\.version|maven\.compiler\.release|maven\.compiler\.source)>\s*([0-9.]+)\s*</)?.[1];
    c.runtimes.add(version ? `Java ${version}` : 'Java');
    addDependencies(c, [...text.matchAll(/<artifactId>\s*([^<\s]+)\s*<\/artifactId>/g)].map((m) => m[1]!));
    if (/spring-boot/.test(text)) c.frameworks.add('Spring Boot');
    return;
  }
  if (base === 'Cargo.toml') {
    c.languages.add('Rust');
    c.packageManagers.add('Cargo');
    c.runtimes.add('Rust');
    const names: string[] = [];
    for (const [name, lines] of tomlTables(text)) {
      if (/^(dev-|build-)?dependencies$/.test(name)) for (const l of lines) names.push(l.match(/^\s*([A-Za-z0-9_-]+)\s*=/)?.[1] ?? '');
      const dotted = name.match(/^dependencies\.([A-Za-z0-9_-]+)$/);
      if (dotted) names.push(dotted[1]!);
    }
    addDependencies(c, names);
    if (names.includes('sqlx') && /postgres/.test(text)) c.databases.add('PostgreSQL');
    if (names.includes('sqlx') && /mysql/.test(text)) c.databases.add('MySQL');
    return;
  }
  if (base === 'composer.json') {
    c.languages.add('PHP');
    c.packageManagers.add('Composer');
    const pkg = tryJson(text);
    if (!pkg) return;
    const require = (pkg.require ?? {}) as Record<string, unknown>;
    if (typeof require.php === 'string') c.runtimes.add(`PHP ${require.php}`);
    addDependencies(c, [...keysOf(pkg.require), ...keysOf(pkg['require-dev'])]);
  }
}

function inspectDockerfile(c: Collected, text: string): void {
  const stages = new Set<string>();
  for (const m of text.matchAll(/^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    const image = m[1]!;
    if (!stages.has(image.toLowerCase()) && !image.includes('$')) c.baseImages.add(image);
    if (m[2]) stages.add(m[2].toLowerCase());
  }
  for (const m of text.matchAll(/^\s*EXPOSE\s+(.+)$/gim)) {
    for (const port of m[1]!.split(/\s+/)) {
      const n = Number(port.split('/')[0]);
      if (Number.isInteger(n) && n > 0 && n < 65536) c.ports.add(n);
    }
  }
}

function inspectCompose(c: Pick<Collected, 'composeServices' | 'databases' | 'services' | 'ports'>, text: string): void {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch {
    return;
  }
  const services = (doc as { services?: Record<string, { image?: unknown; ports?: unknown }> } | null)?.services;
  if (!services || typeof services !== 'object') return;
  for (const [name, service] of Object.entries(services)) {
    c.composeServices.add(name);
    if (typeof service?.image === 'string') addImage(c, service.image);
    if (Array.isArray(service?.ports)) {
      for (const p of service.ports) {
        const target = typeof p === 'object' && p ? (p as { target?: unknown }).target : String(p).split(':').pop()?.split('/')[0];
        const n = Number(target);
        if (Number.isInteger(n) && n > 0 && n < 65536) c.ports.add(n);
      }
    }
  }
}

function inspectCi(c: Collected, path: string): void {
  if (path.startsWith('.github/workflows/')) c.ci.add('GitHub Actions');
  else if (path === '.gitlab-ci.yml') c.ci.add('GitLab CI');
  else if (path === '.circleci/config.yml') c.ci.add('CircleCI');
  else if (path === 'Jenkinsfile') c.ci.add('Jenkins');
  else if (path === 'bitbucket-pipelines.yml') c.ci.add('Bitbucket Pipelines');
}

/** Names of `KEY=value` lines (also `export KEY=value`); values are never kept. */
export function variableNames(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]{0,127})\s*=/);
    if (m && !names.includes(m[1]!)) names.push(m[1]!);
  }
  return names;
}

const sorted = (s: Set<string>): string[] => [...s].sort((a, b) => a.localeCompare(b));

/**
 * `options.branch` pins the application's published image to the branch's release; `options.name` (the
 * repository's name) recognises its image in a documented compose.
 */
export async function inspectRepository(snapshot: RepositorySnapshot, language: string | null, options: { branch?: string; name?: string; fullName?: string } = {}): Promise<Inspection> {
  const relevant = snapshot.files
    .map((p) => ({ path: p, kind: kindOf(p) }))
    .filter((f): f is { path: string; kind: Kind } => f.kind !== undefined)
    .sort((a, b) => a.path.split('/').length - b.path.split('/').length || a.path.localeCompare(b.path))
    .slice(0, MAX_FILES_READ);
  const c: Collected = {
    languages: new Set(),
    frameworks: new Set(),
    databases: new Set(),
    services: new Set(),
    runtimes: new Set(),
    packageManagers: new Set(),
    baseImages: new Set(),
    ports: new Set(),
    composeServices: new Set(),
    ci: new Set(),
    buildCommands: new Set(),
    startCommands: new Set(),
  };
  const envExample: string[] = [];
  const read: string[] = [];
  for (const f of relevant) {
    if (f.kind === 'ci') {
      inspectCi(c, f.path);
      read.push(f.path);
      continue;
    }
    const text = await snapshot.read(f.path);
    if (text === undefined) continue;
    read.push(f.path);
    if (f.kind === 'manifest') inspectManifest(c, f.path, text, snapshot.files);
    else if (f.kind === 'dockerfile') inspectDockerfile(c, text);
    else if (f.kind === 'compose') inspectCompose(c, text);
    else for (const n of variableNames(text)) if (!envExample.includes(n)) envExample.push(n);
  }
  // An ORM's schema names the database even when no driver package does (Prisma brings its own engines).
  for (const db of await ormDatabases(snapshot)) c.databases.add(db);
  const layout = await readLayout(snapshot, options);
  // With a compose file to deploy, what runs is what it runs: a client library in a manifest (uptime-kuma's
  // drivers for the databases it can monitor) is not a service the application needs.
  let clientLibraries: string[] = [];
  if (layout.compose) {
    const deployed = { composeServices: new Set<string>(), databases: new Set<string>(), services: new Set<string>(), ports: new Set<number>() };
    inspectCompose(deployed, layout.compose.text);
    clientLibraries = sorted(new Set([...c.databases, ...c.services].filter((x) => !deployed.databases.has(x) && !deployed.services.has(x))));
    c.databases = deployed.databases;
    c.services = deployed.services;
    c.composeServices = deployed.composeServices;
    if (deployed.ports.size) c.ports = deployed.ports;
  }
  const main = language ?? [...c.languages][0] ?? null;
  const stack: Record<string, unknown> = {};
  if (main) stack.language = main;
  const others = sorted(c.languages).filter((l) => l !== main);
  if (others.length) stack.other_languages = others;
  if (c.runtimes.size) stack.runtime = sorted(c.runtimes);
  if (c.frameworks.size) stack.frameworks = sorted(c.frameworks);
  if (c.databases.size) stack.databases = sorted(c.databases);
  if (c.services.size) stack.services = sorted(c.services);
  if (clientLibraries.length) stack.client_libraries = clientLibraries;
  if (c.packageManagers.size) stack.package_managers = sorted(c.packageManagers);
  const hasDockerfile = read.some((p) => kindOf(p) === 'dockerfile');
  const hasCompose = read.some((p) => kindOf(p) === 'compose');
  stack.containerization = hasDockerfile || hasCompose ? [...(hasDockerfile ? ['Dockerfile'] : []), ...(hasCompose ? ['Docker Compose'] : [])] : 'none yet';
  if (c.baseImages.size) stack.base_images = sorted(c.baseImages);
  if (c.composeServices.size) stack.compose_services = sorted(c.composeServices);
  if (c.ports.size) stack.ports = [...c.ports].sort((a, b) => a - b);
  if (c.ci.size) stack.ci = sorted(c.ci);
  if (c.buildCommands.size) stack.build_command = sorted(c.buildCommands)[0];
  if (c.startCommands.size) stack.start_command = sorted(c.startCommands)[0];
  if (layout.compose) stack.deployment = layout.compose.reasons?.join(' ') ?? layout.compose.path;
  return { technology_stack: stack, files: read, env_example_names: envExample, layout };
}
