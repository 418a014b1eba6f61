import fs from 'node:fs/promises';
import path from 'node:path';
import type { Branch, Repository } from '../../../shared/api/repositories';
import { notFound } from '../../errors';
import { git, gitText, parseLsTree, type TreeEntry } from './git';
import { guessLanguage, MAX_ANALYSED_FILE_BYTES, stableId, type RepositorySnapshot, type RepositorySource } from './repositorySource';

export { LOCAL_BUNDLE } from '../../../shared/repositoryLayout';

/** The owner part of every local repository's full name: `local/<folder>`. */
export const LOCAL_OWNER = 'local';

/** The message of an empty listing when LOCAL_REPOS_DIR is not set. */
export const LOCAL_REPOS_UNSET_MESSAGE =
  'No repositories: set LOCAL_REPOS_DIR to a folder that holds git repositories (each a folder with a .git directory, or a bare repository) and restart the server.';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
const DEFAULT_DESCRIPTION = /^Unnamed repository; edit this file/;
const MAX_REPOSITORIES = 500;

const isInside = (root: string, p: string): boolean => p.startsWith(root + path.sep);

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** The git directory of a folder: its `.git`, or itself when it is a bare repository; undefined otherwise. */
async function gitDirOf(dir: string): Promise<string | undefined> {
  const dotGit = path.join(dir, '.git');
  const stat = await fs.stat(dotGit).catch(() => undefined);
  if (stat?.isDirectory()) return dotGit;
  if ((await exists(path.join(dir, 'HEAD'))) && (await exists(path.join(dir, 'objects'))) && (await exists(path.join(dir, 'refs')))) return dir;
  return undefined;
}

/** The first line of a README that says something (not its title when that is the repository name). */
function readmeLine(text: string, name: string): string | null {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/^#+\s*/, '').replace(/<[^>]*>/g, '').trim())
    .filter((l) => l && !/^(!\[|\[!\[|=+$|-+$)/.test(l));
  const first = lines[0]?.toLowerCase() === name.toLowerCase() ? lines[1] : lines[0];
  return first ? first.slice(0, 300) : null;
}

/**
 * The local provider's repositories: the git repositories directly under LOCAL_REPOS_DIR, each named
 * `local/<folder>`. A name resolves only to a folder of that directory: `.`/`..`, other separators and
 * symlinks whose target lies outside it are not repositories (404). Everything is read with git from the
 * object database; nothing is checked out or written.
 */
export function createLocalRepositories(root: string | undefined): RepositorySource {
  /** The repository folder of a full name, checked to stay within the root; 404 otherwise. */
  async function resolve(fullName: string): Promise<{ dir: string; name: string }> {
    const missing = notFound(`Repository ${fullName} not found`);
    if (!root) throw missing;
    const [owner, name, ...rest] = fullName.split('/');
    if (owner !== LOCAL_OWNER || !name || rest.length || !NAME.test(name) || name === '.' || name === '..') throw missing;
    const realRoot = await fs.realpath(root).catch(() => undefined);
    if (!realRoot) throw missing;
    const dir = await fs.realpath(path.join(realRoot, name)).catch(() => undefined);
    if (!dir || !isInside(realRoot, dir)) throw missing;
    const gitDir = await gitDirOf(dir);
    if (!gitDir) throw missing;
    const realGitDir = await fs.realpath(gitDir).catch(() => undefined);
    if (!realGitDir || !(realGitDir === dir || isInside(realRoot, realGitDir))) throw missing;
    return { dir, name };
  }

  /**
   * The repository's branches: its own (`main`), then those of its `origin` remote as git names them
   * (`origin/feature`), so a clone offers what was pushed but never checked out. `origin/HEAD` is an alias.
   */
  async function branchesOf(dir: string): Promise<Branch[]> {
    const out = await gitText(dir, ['for-each-ref', '--format=%(refname)%00%(objectname)', 'refs/heads', 'refs/remotes/origin']);
    const all = out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [ref, sha] = line.split('\0');
        const name = ref!.startsWith('refs/heads/') ? ref!.slice('refs/heads/'.length) : ref!.slice('refs/remotes/'.length);
        return { name, protected: false, commit_sha: sha! };
      })
      .filter((b) => b.name !== 'origin/HEAD');
    const byName = (a: Branch, b: Branch): number => a.name.localeCompare(b.name);
    const remote = (b: Branch): boolean => b.name.startsWith('origin/');
    return [...all.filter((b) => !remote(b)).sort(byName), ...all.filter(remote).sort(byName)];
  }

  async function defaultBranchOf(dir: string, branches: Branch[]): Promise<string> {
    const head = (await gitText(dir, ['symbolic-ref', '--quiet', 'HEAD']).catch(() => '')).trim();
    const name = head.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : '';
    if (name && branches.some((b) => b.name === name)) return name;
    return ['main', 'master'].find((n) => branches.some((b) => b.name === n)) ?? branches[0]?.name ?? (name || 'main');
  }

  async function treeOf(dir: string, sha: string): Promise<TreeEntry[]> {
    return parseLsTree(await git(dir, ['ls-tree', '-r', '-l', '-z', '--full-tree', sha]));
  }

  async function blobText(dir: string, entry: TreeEntry | undefined, maxBytes = MAX_ANALYSED_FILE_BYTES): Promise<string | undefined> {
    if (!entry || entry.type !== 'blob' || !/^1006[0-9]{2}$/.test(entry.mode) || entry.size > maxBytes) return undefined;
    return (await git(dir, ['cat-file', 'blob', entry.sha])).toString('utf8');
  }

  async function describe(dir: string, name: string): Promise<Repository> {
    const branches = await branchesOf(dir);
    const defaultBranch = await defaultBranchOf(dir, branches);
    const head = branches.find((b) => b.name === defaultBranch);
    let description: string | null = null;
    let language: string | null = null;
    let updatedAt: string | null = null;
    if (head) {
      const tree = await treeOf(dir, head.commit_sha);
      language = guessLanguage(tree.filter((e) => e.type === 'blob'));
      const readme = tree.find((e) => /^readme(\.(md|markdown|rst|txt))?$/i.test(e.path));
      const text = await blobText(dir, readme, 64 * 1024);
      description = text ? readmeLine(text, name) : null;
      const committed = (await gitText(dir, ['log', '-1', '--format=%cI', head.commit_sha])).trim();
      updatedAt = committed ? new Date(committed).toISOString() : null;
    }
    if (!description) {
      const gitDir = (await gitDirOf(dir)) ?? dir;
      const text = (await fs.readFile(path.join(gitDir, 'description'), 'utf8').catch(() => '')).trim();
      description = text && !DEFAULT_DESCRIPTION.test(text) ? text.split('\n')[0]!.slice(0, 300) : null;
    }
    return {
      id: stableId(`${LOCAL_OWNER}/${name}`),
      name,
      full_name: `${LOCAL_OWNER}/${name}`,
      description,
      private: true,
      language,
      stargazers_count: 0,
      updated_at: updatedAt,
      default_branch: defaultBranch,
    };
  }

  return {
    kind: 'local',

    async list() {
      if (!root) return { repositories: [], requires_permission_request: false, message: LOCAL_REPOS_UNSET_MESSAGE };
      const entries = await fs.readdir(root).catch(() => undefined);
      if (!entries) return { repositories: [], requires_permission_request: false, message: `LOCAL_REPOS_DIR (${root}) cannot be read.` };
      const names = entries.filter((n) => NAME.test(n) && !n.startsWith('.')).sort().slice(0, MAX_REPOSITORIES);
      const repositories: Repository[] = [];
      for (const name of names) {
        const found = await resolve(`${LOCAL_OWNER}/${name}`).catch(() => undefined);
        if (!found) continue;
        const repo = await describe(found.dir, found.name).catch(() => undefined);
        if (repo) repositories.push(repo);
      }
      repositories.sort((a, b) => (b.updated_at ?? '').localeCompare(a.updated_at ?? '') || a.name.localeCompare(b.name));
      return {
        repositories,
        requires_permission_request: false,
        message: repositories.length ? null : `No git repositories in LOCAL_REPOS_DIR (${root}).`,
      };
    },

    async find(_installation, fullName) {
      const { dir, name } = await resolve(fullName);
      return describe(dir, name);
    },

    async branches(_installation, fullName) {
      const { dir } = await resolve(fullName);
      return branchesOf(dir);
    },

    /** The branch as a git bundle (its whole history): how a local repository reaches a sandbox, which cannot read LOCAL_REPOS_DIR. */
    async bundle(_installation, fullName, branch): Promise<Buffer> {
      const { dir } = await resolve(fullName);
      if (!(await branchesOf(dir)).some((b) => b.name === branch)) throw notFound(`Branch ${branch} not found in ${fullName}`);
      return git(dir, ['bundle', 'create', '--quiet', '-', `refs/heads/${branch}`]);
    },

    async snapshot(_installation, fullName, branch): Promise<RepositorySnapshot> {
      const { dir } = await resolve(fullName);
      const found = (await branchesOf(dir)).find((b) => b.name === branch);
      if (!found) throw notFound(`Branch ${branch} not found in ${fullName}`);
      const tree = (await treeOf(dir, found.commit_sha)).filter((e) => e.type === 'blob');
      const byPath = new Map(tree.map((e) => [e.path, e]));
      return {
        commitSha: found.commit_sha,
        files: tree.map((e) => e.path),
        read: (p, maxBytes) => blobText(dir, byPath.get(p), maxBytes),
      };
    },
  };
}
