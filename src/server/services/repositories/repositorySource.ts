import type { Branch, RepositoriesResponse, Repository } from '../../../shared/api/repositories';

/** Whose repositories a call is about: our installation row and the id the provider knows it by. */
export interface InstallationRef {
  installationId: number;
  /** GitHub's installation id with the GitHub provider (the Installation-Id header). */
  publicInstallationId: number;
}

/** The files of one branch, read without checking anything out. */
export interface RepositorySnapshot {
  /** Every file path of the branch's tree, '/'-separated, relative to the repository root. */
  files: string[];
  /** One file's text; undefined when it is missing, not a regular file or larger than `maxBytes`. */
  read(path: string, maxBytes?: number): Promise<string | undefined>;
  /** The commit the snapshot was read at. */
  commitSha: string;
}

/** A token limited to one repository, for the project's GITHUB_TOKEN user secret. */
export interface RepositoryToken {
  token: string;
  expiresAt: string;
  permissions: Record<string, string>;
}

/**
 * Where repositories come from: the folder LOCAL_REPOS_DIR (local provider) or the GitHub App's
 * installation. Chosen once at start; every method takes the caller's installation and answers 404
 * (HttpError) for a repository or branch that is not the caller's.
 */
export interface RepositorySource {
  kind: 'local' | 'github';
  list(installation: InstallationRef): Promise<RepositoriesResponse>;
  /** The repository as the listing shows it; 404 when it is not one of the caller's. */
  find(installation: InstallationRef, fullName: string): Promise<Repository>;
  branches(installation: InstallationRef, fullName: string): Promise<Branch[]>;
  /** The tree of `branch`; 404 when the branch does not exist. */
  snapshot(installation: InstallationRef, fullName: string, branch: string): Promise<RepositorySnapshot>;
  /** Local only: the branch as a git bundle, for the sandbox (no URL serves a local repository). */
  bundle?(installation: InstallationRef, fullName: string, branch: string): Promise<Buffer>;
  /** GitHub only: an installation token scoped to this one repository and the permissions given. */
  repositoryToken?(installation: InstallationRef, fullName: string, permissions: Record<string, string>): Promise<RepositoryToken>;
}

/** Files the analysis reads, capped so that a huge file cannot stall it. */
export const MAX_ANALYSED_FILE_BYTES = 256 * 1024;

/** A stable positive 31-bit id for a name (local repositories have no numeric id of their own). */
export function stableId(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i += 1) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % 2_147_483_647 || 1;
}

/** Language of a file by its extension, as GitHub's linguist names them (the common ones). */
const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript',
  js: 'JavaScript', jsx: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript',
  py: 'Python', rb: 'Ruby', go: 'Go', rs: 'Rust', java: 'Java', kt: 'Kotlin', scala: 'Scala',
  php: 'PHP', cs: 'C#', fs: 'F#', c: 'C', h: 'C', cpp: 'C++', cc: 'C++', hpp: 'C++', swift: 'Swift',
  ex: 'Elixir', exs: 'Elixir', erl: 'Erlang', dart: 'Dart', lua: 'Lua', sh: 'Shell', bash: 'Shell',
  vue: 'Vue', svelte: 'Svelte', html: 'HTML', css: 'CSS', scss: 'SCSS', hcl: 'HCL', tf: 'HCL',
};

/**
 * Paths never counted for the language: vendored and generated code, documentation sites and test data
 * (a recipe app's 2 MB of saved HTML pages under tests/data is not what it is written in).
 */
const NOT_SOURCE = /(^|\/)(node_modules|vendor|dist|build|target|\.git|third_party|__pycache__|docs?|site|fixtures|testdata|__fixtures__|__snapshots__)\/|(^|\/)tests?\/(data|fixtures|resources)\//;

/** Languages that describe a page or its style rather than run: the main language only when nothing else is there. */
const MARKUP = new Set(['HTML', 'CSS', 'SCSS']);

/**
 * Guesses the main language from the weight of the source: bytes per language by extension
 * (linguist's approach, without its heuristics), programming languages before markup and style.
 */
export function guessLanguage(files: Array<{ path: string; size: number }>): string | null {
  const bytes = new Map<string, number>();
  for (const f of files) {
    if (NOT_SOURCE.test(f.path) || /\.min\.(js|css)$/.test(f.path)) continue;
    const ext = f.path.slice(f.path.lastIndexOf('.') + 1).toLowerCase();
    const language = f.path.includes('.') ? LANGUAGE_BY_EXTENSION[ext] : undefined;
    if (language) bytes.set(language, (bytes.get(language) ?? 0) + Math.max(1, f.size));
  }
  const ranked = [...bytes].sort(([a, x], [b, y]) => Number(MARKUP.has(a)) - Number(MARKUP.has(b)) || y - x);
  return ranked[0]?.[0] ?? null;
}
