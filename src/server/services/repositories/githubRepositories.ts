import { Octokit } from '@octokit/core';
import { createAppAuth } from '@octokit/auth-app';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import type { Branch, Repository } from '../../../shared/api/repositories';
import type { GithubAppConfig } from '../../config';
import { notFound } from '../../errors';
import { MAX_ANALYSED_FILE_BYTES, type InstallationRef, type RepositorySnapshot, type RepositorySource } from './repositorySource';

const USER_AGENT = 'devops-agents';
/** Every call to GitHub must answer within this time. */
const GITHUB_TIMEOUT_MS = 20_000;
/** Most files a snapshot lists (GitHub's recursive tree answer stops near 100,000 entries anyway). */
const MAX_TREE_ENTRIES = 100_000;

const InstallationOctokit = Octokit.plugin(paginateRest);
type InstallationClient = InstanceType<typeof InstallationOctokit>;

interface GithubRepository {
  id: number;
  name: string;
  full_name: string;
  description: string | null;
  private: boolean;
  language?: string | null;
  stargazers_count?: number;
  updated_at?: string | null;
  pushed_at?: string | null;
  default_branch?: string;
}

const statusOf = (err: unknown): number | undefined => (err as { status?: number } | null)?.status;

function toRepository(r: GithubRepository): Repository {
  return {
    id: r.id,
    name: r.name,
    full_name: r.full_name,
    description: r.description ? r.description.slice(0, 2_000) : null,
    private: r.private,
    language: r.language ?? null,
    stargazers_count: r.stargazers_count ?? 0,
    updated_at: r.pushed_at ?? r.updated_at ?? null,
    default_branch: r.default_branch || 'main',
  };
}

/**
 * The GitHub provider's repositories: those the App's installation was granted, read with an
 * installation access token (`@octokit/auth-app`: a JWT signed with the App's private key, exchanged at
 * `POST /app/installations/{id}/access_tokens`, cached until it nears expiry). A repository is the
 * caller's only when the installation lists it — a public repository elsewhere answers 404 here even
 * though GitHub would serve it. Branches come from the branches API, files from the git trees and blobs
 * APIs, so nothing is cloned.
 */
export function createGithubRepositories(github: Pick<GithubAppConfig, 'appId' | 'privateKey' | 'apiUrl' | 'webUrl' | 'slug'>): RepositorySource {
  const clients = new Map<number, InstallationClient>();
  const clientOf = (installation: InstallationRef): InstallationClient => {
    let client = clients.get(installation.publicInstallationId);
    if (!client) {
      client = new InstallationOctokit({
        authStrategy: createAppAuth,
        auth: { appId: Number(github.appId), privateKey: github.privateKey, installationId: installation.publicInstallationId },
        baseUrl: github.apiUrl,
        userAgent: USER_AGENT,
        request: { timeout: GITHUB_TIMEOUT_MS },
      });
      clients.set(installation.publicInstallationId, client);
    }
    return client;
  };

  async function listAll(installation: InstallationRef): Promise<GithubRepository[]> {
    return (await clientOf(installation).paginate('GET /installation/repositories', { per_page: 100 })) as GithubRepository[];
  }

  /** The installation's repository of that name (GitHub names are case-insensitive); 404 otherwise. */
  async function findRaw(installation: InstallationRef, fullName: string): Promise<GithubRepository> {
    const wanted = fullName.toLowerCase();
    const found = (await listAll(installation)).find((r) => r.full_name.toLowerCase() === wanted);
    if (!found) throw notFound(`Repository ${fullName} not found`);
    return found;
  }

  const split = (fullName: string): { owner: string; repo: string } => {
    const [owner, repo] = fullName.split('/');
    return { owner: owner!, repo: repo! };
  };

  return {
    kind: 'github',

    async list(installation) {
      let repositories: GithubRepository[];
      try {
        repositories = await listAll(installation);
      } catch (err) {
        const status = statusOf(err);
        if (status !== 401 && status !== 403 && status !== 404) throw err;
        return {
          repositories: [],
          requires_permission_request: true,
          message: `The GitHub App cannot read this installation's repositories. Grant it access at ${github.webUrl}/apps/${github.slug}/installations/new`,
        };
      }
      if (!repositories.length) {
        return {
          repositories: [],
          requires_permission_request: true,
          message: `The GitHub App has not been granted any repository yet. Grant it access at ${github.webUrl}/apps/${github.slug}/installations/new`,
        };
      }
      return { repositories: repositories.map(toRepository), requires_permission_request: false, message: null };
    },

    async find(installation, fullName) {
      return toRepository(await findRaw(installation, fullName));
    },

    async branches(installation, fullName): Promise<Branch[]> {
      const repo = await findRaw(installation, fullName);
      const { owner, repo: name } = split(repo.full_name);
      const list = (await clientOf(installation).paginate('GET /repos/{owner}/{repo}/branches', { owner, repo: name, per_page: 100 })) as Array<{
        name: string;
        protected?: boolean;
        commit: { sha: string };
      }>;
      return list.map((b) => ({ name: b.name, protected: b.protected === true, commit_sha: b.commit.sha }));
    },

    async snapshot(installation, fullName, branch): Promise<RepositorySnapshot> {
      const repo = await findRaw(installation, fullName);
      const { owner, repo: name } = split(repo.full_name);
      const client = clientOf(installation);
      let sha: string;
      try {
        const { data } = await client.request('GET /repos/{owner}/{repo}/branches/{branch}', { owner, repo: name, branch });
        sha = data.commit.sha;
      } catch (err) {
        if (statusOf(err) === 404) throw notFound(`Branch ${branch} not found in ${fullName}`);
        throw err;
      }
      const { data: tree } = await client.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', { owner, repo: name, tree_sha: sha, recursive: '1' });
      const blobs = tree.tree.filter((e) => e.type === 'blob' && e.path && e.sha && /^1006[0-9]{2}$/.test(e.mode ?? '')).slice(0, MAX_TREE_ENTRIES);
      const byPath = new Map(blobs.map((e) => [e.path!, e]));
      return {
        commitSha: sha,
        files: blobs.map((e) => e.path!),
        async read(p, maxBytes = MAX_ANALYSED_FILE_BYTES) {
          const entry = byPath.get(p);
          if (!entry || (entry.size ?? 0) > maxBytes) return undefined;
          const { data } = await client.request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { owner, repo: name, file_sha: entry.sha! });
          return Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
        },
      };
    },

    async repositoryToken(installation, fullName, permissions) {
      const repo = await findRaw(installation, fullName);
      const auth = (await clientOf(installation).auth({
        type: 'installation',
        repositoryNames: [repo.name],
        permissions,
      })) as { token: string; expiresAt: string; permissions: Record<string, string> };
      return { token: auth.token, expiresAt: auth.expiresAt, permissions: auth.permissions };
    },
  };
}

