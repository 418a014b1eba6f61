import type { RepositorySnapshot } from './repositorySource';

/**
 * How a repository is built and run, as the plan needs it: its own compose file (which the plan deploys
 * with) and its Dockerfiles (each one a service when there is no compose file). Stored with the analysis
 * as `layout`; only repository files, never the person's environment values.
 */
export interface RepositoryLayout {
  /** The repository's own compose file at its root (or one folder down), with its text. */
  compose?: { path: string; text: string };
  /** Dockerfiles that build something to run (tests and tooling left out): the folder they build from and what they EXPOSE. */
  dockerfiles: Array<{ path: string; context: string; ports: number[] }>;
}

const MAX_COMPOSE_BYTES = 64 * 1024;
/** The file names Compose itself looks for, in its order. */
const COMPOSE_NAMES = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];
/** Dockerfiles for tests, development, tooling and one-off seeding are not the application. */
const NOT_RUN = /(^|\/)(tests?|e2e|spec|\.devcontainer|docs?|examples?|seed[\w-]*)\/|\.(dev|test|e2e|playwright|ci)$|Dockerfile\.(dev|test|e2e|playwright|ci)/i;

const exposed = (text: string): number[] =>
  [...text.matchAll(/^\s*EXPOSE\s+(.+)$/gim)].flatMap((m) => m[1]!.split(/\s+/).map((p) => Number(p.split('/')[0]))).filter((n) => Number.isInteger(n) && n > 0 && n < 65536);

export async function readLayout(snapshot: RepositorySnapshot): Promise<RepositoryLayout> {
  const depth = (p: string): number => p.split('/').length - 1;
  const composePath = [0, 1]
    .flatMap((d) => COMPOSE_NAMES.flatMap((name) => snapshot.files.filter((f) => depth(f) === d && f.slice(f.lastIndexOf('/') + 1) === name)))
    .find(Boolean);
  const composeText = composePath ? await snapshot.read(composePath, MAX_COMPOSE_BYTES) : undefined;
  const dockerfiles: RepositoryLayout['dockerfiles'] = [];
  for (const path of snapshot.files.filter((f) => depth(f) <= 2 && /(^|\/)(Dockerfile|Containerfile)$/.test(f) && !NOT_RUN.test(f)).sort()) {
    const text = await snapshot.read(path);
    if (text === undefined) continue;
    dockerfiles.push({ path, context: path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.', ports: [...new Set(exposed(text))] });
  }
  return { ...(composePath && composeText !== undefined ? { compose: { path: composePath, text: composeText } } : {}), dockerfiles };
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
