import { createHash, createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import accessToken from '../fixtures/github/installation-access-token.json';
import badCredentials from '../fixtures/github/bad-credentials.json';
import installationRepositories from '../fixtures/github/installation-repositories.json';
import repoBranches from '../fixtures/github/repo-branches.json';

const NOT_FOUND = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' };

/** git's object id of a blob. */
export const blobSha = (content: string): string => createHash('sha1').update(`blob ${Buffer.byteLength(content)}\0${content}`).digest('hex');

export interface IssuedToken {
  token: string;
  installationId: number;
  repositories: string[] | undefined;
  permissions: Record<string, string> | undefined;
}

/**
 * A local api.github.com for a GitHub App installation, replaying recorded answers: it checks the App's
 * JWT (RS256 with the App's public key, `iss` the App id, at most 10 minutes), issues installation
 * tokens (scoped to the repositories and permissions asked), and serves the installation's
 * repositories, branches, trees and blobs only to a token of that installation and repository.
 */
export class FakeGithubApi {
  url = '';
  readonly calls: string[] = [];
  readonly issued: IssuedToken[] = [];
  /** Files of each branch head commit (by commit sha) of octocat/shop-api. */
  readonly commits = new Map<string, Record<string, string>>();
  pageSize: number | undefined;
  private server = http.createServer((req, res) => void this.handle(req, res));

  constructor(
    private readonly appId: string,
    private readonly publicKeyPem: string,
    readonly installationId: number,
  ) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private jwtValid(header: string | undefined): boolean {
    const jwt = header?.replace(/^bearer /i, '') ?? '';
    const [h, p, s] = jwt.split('.');
    if (!h || !p || !s) return false;
    const ok = verify('RSA-SHA256', Buffer.from(`${h}.${p}`), createPublicKey(this.publicKeyPem), Buffer.from(s, 'base64url'));
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { iss?: unknown; exp?: number; iat?: number };
    const now = Math.floor(Date.now() / 1000);
    return ok && String(claims.iss) === this.appId && (claims.exp ?? 0) > now && (claims.exp ?? 0) - (claims.iat ?? 0) <= 600;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    this.calls.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);

    const tokenPath = url.pathname.match(/^\/app\/installations\/(\d+)\/access_tokens$/);
    if (req.method === 'POST' && tokenPath) {
      if (!this.jwtValid(req.headers.authorization)) return send(401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' });
      if (Number(tokenPath[1]) !== this.installationId) return send(404, NOT_FOUND);
      const body = (chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}) as { repositories?: string[]; permissions?: Record<string, string> };
      const token = `ghs_${this.issued.length}${accessToken.token.slice(5)}`;
      this.issued.push({ token, installationId: this.installationId, repositories: body.repositories, permissions: body.permissions });
      const repos = body.repositories ? installationRepositories.repositories.filter((r) => body.repositories!.includes(r.name)) : undefined;
      return send(201, {
        ...accessToken,
        token,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: body.permissions ?? accessToken.permissions,
        ...(repos ? { repositories: repos } : {}),
      });
    }

    const presented = req.headers.authorization?.replace(/^(token|bearer) /i, '');
    const grant = this.issued.find((t) => t.token === presented);
    if (!grant) return send(401, badCredentials);

    if (req.method === 'GET' && url.pathname === '/installation/repositories') {
      const all = installationRepositories.repositories.filter((r) => !grant.repositories || grant.repositories.includes(r.name));
      const perPage = this.pageSize ?? Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number): string => `<${this.url}/installation/repositories?per_page=${perPage}&page=${p}>`;
      return send(
        200,
        { total_count: all.length, repository_selection: 'selected', repositories: all.slice((page - 1) * perPage, page * perPage) },
        page < last ? { link: `${link(page + 1)}; rel="next", ${link(last)}; rel="last"` } : {},
      );
    }

    const repoPath = url.pathname.match(/^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/);
    if (req.method === 'GET' && repoPath) {
      const [, owner, name, rest = ''] = repoPath;
      const repo = installationRepositories.repositories.find((r) => r.full_name === `${owner}/${name}`);
      if (!repo || repo.name !== 'shop-api' || (grant.repositories && !grant.repositories.includes(repo.name))) return send(404, NOT_FOUND);
      if (rest === '/branches') return send(200, repoBranches);
      const branch = rest.match(/^\/branches\/(.+)$/);
      if (branch) {
        const found = repoBranches.find((b) => b.name === decodeURIComponent(branch[1]!));
        return found ? send(200, { ...found, _links: {} }) : send(404, { message: 'Branch not found', documentation_url: 'https://docs.github.com/rest', status: '404' });
      }
      const tree = rest.match(/^\/git\/trees\/([0-9a-f]{40})$/);
      if (tree) {
        const files = this.commits.get(tree[1]!);
        if (!files) return send(404, NOT_FOUND);
        return send(200, {
          sha: tree[1],
          url: `${this.url}/repos/${owner}/${name}/git/trees/${tree[1]}`,
          tree: Object.entries(files).map(([path, content]) => ({ path, mode: '100644', type: 'blob', sha: blobSha(content), size: Buffer.byteLength(content), url: '' })),
          truncated: false,
        });
      }
      const blob = rest.match(/^\/git\/blobs\/([0-9a-f]{40})$/);
      if (blob) {
        for (const files of this.commits.values()) {
          for (const content of Object.values(files)) {
            if (blobSha(content) === blob[1]) {
              return send(200, { sha: blob[1], node_id: '', size: Buffer.byteLength(content), url: '', content: `${Buffer.from(content).toString('base64').replace(/(.{60})/g, '$1\n')}\n`, encoding: 'base64' });
            }
          }
        }
        return send(404, NOT_FOUND);
      }
    }
    return send(404, NOT_FOUND);
  }
}
