import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../config';
import { forbidden } from '../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The policy of every /api answer: JSON, event streams and downloads run nothing and show nothing. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
/** Sec-Fetch-Site values a browser sends for a request this app's own pages (or the person, typing) made. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/** The exact origins the app's pages are served from: PUBLIC_URL's and ALLOWED_ORIGINS. */
export function appOrigins(publicUrl: string, allowedOrigins: string[]): Set<string> {
  return new Set([new URL(publicUrl).origin, ...allowedOrigins.map((o) => new URL(o).origin)]);
}

/**
 * Why a state-changing request must be refused as cross-origin, or null when it may go on.
 *
 * - With `Origin`: it must be one of the app's exact origins. A page on another port of the same
 *   host is same-site, so SameSite=Lax cookies ride along; only the exact origin tells it apart.
 * - Without `Origin`: every current browser sends `Origin` on a POST/PUT/PATCH/DELETE, so a request
 *   without it comes from a non-browser client (curl, a script, the documents' client), which cannot
 *   ride a person's cookies and is let through. If it does carry `Sec-Fetch-Site` (a browser that
 *   withheld `Origin`), anything but `same-origin`/`none` is refused.
 */
export function crossOriginProblem(request: Pick<FastifyRequest, 'method' | 'headers'>, origins: Set<string>): string | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const origin = request.headers.origin;
  if (origin !== undefined) {
    return origins.has(origin) ? null : `Cross-origin request refused: ${origin} is not this app's origin`;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && !OWN_FETCH_SITES.has(String(site))) return `Cross-site request refused (Sec-Fetch-Site: ${String(site)})`;
  return null;
}

/** Each kind of answer's security headers (see requestOriginPlugin). */
export interface SecurityHeaders {
  /** Every answer's. */
  common: Record<string, string>;
  /** An API answer is data, never a page: it may load nothing and be framed by no one (OWASP's REST headers). Short, as every hot poll carries it. */
  api: Record<string, string>;
  /** The app's pages and the API's own HTML pages. */
  page: Record<string, string>;
  /** The API reference (swagger-ui), which brings its own inline scripts. */
  docs: Record<string, string>;
}

export function securityHeaders(config: Pick<AppConfig, 'publicUrl' | 'github'>): SecurityHeaders {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    // GitHub sign-in shows the person's GitHub avatar.
    `img-src 'self' data:${config.github ? ' https://avatars.githubusercontent.com' : ''}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
  const common: Record<string, string> = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };
  if (config.publicUrl.startsWith('https://')) common['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  return {
    common,
    api: { ...common, 'x-frame-options': 'DENY', 'content-security-policy': API_CSP },
    page: { ...common, 'x-frame-options': 'SAMEORIGIN', 'content-security-policy': csp },
    docs: { ...common, 'x-frame-options': 'SAMEORIGIN' },
  };
}

/**
 * The browser side of the API's safety: state-changing /api requests only from the app's own
 * origin (403 otherwise), and the response headers that keep a page to its own origin (nosniff,
 * same-origin referrers, no framing by others, the CSP built by `securityHeaders`; API answers get API_CSP).
 *
 * Content-Security-Policy: scripts, connections, fonts and images from this origin only (images also
 * `data:`, which the app's own inline images use); no plugins, no framing by others, forms post only
 * here. `style-src` also allows 'unsafe-inline': styled-components writes its CSS into `<style>` tags
 * at run time, and a nonce would have to be minted per page and threaded into the client bundle
 * (`__webpack_nonce__`) for the static index.html we serve; inline styles cannot run script, so the
 * exception leaves script injection closed. HSTS is sent when PUBLIC_URL is https.
 */
export const requestOriginPlugin = fp(
  async (app) => {
    const origins = appOrigins(app.config.publicUrl, app.config.allowedOrigins);
    const headers = securityHeaders(app.config);

    // Both hooks run on every request: plain callbacks, no promise each.
    app.addHook('onRequest', (request, _reply, done) => {
      const problem = request.url.startsWith('/api/') ? crossOriginProblem(request, origins) : null;
      done(problem ? forbidden(problem) : undefined);
    });

    app.addHook('onSend', (request, reply, _payload, done) => {
      // An API 304 only updates the answer the browser holds, whose security headers stay as they were
      // (RFC 9110 §15.4.5: it carries what guides that update, its ETag and Cache-Control). Every hot
      // poll is one, so it carries nothing more. A page's 304 carries them all: a policy changed by the
      // configuration (GitHub's avatars) reaches a page whose bytes did not change.
      if (reply.statusCode === 304 && request.url.startsWith('/api/')) return done();
      // A page that sets a policy of its own (the local test checkout: no script at all) keeps it.
      if (reply.hasHeader('content-security-policy')) reply.headers(headers.common);
      // The API reference page (swagger-ui) brings its own inline scripts and is not the app.
      else if (request.url.startsWith('/api/docs')) reply.headers(headers.docs);
      // A page: the app's, or one of the API's own (the provider's sign-out page, loaded in a frame of ours).
      else if (!request.url.startsWith('/api/') || String(reply.getHeader('content-type') ?? '').startsWith('text/html')) reply.headers(headers.page);
      else reply.headers(headers.api);
      done();
    });
  },
  { name: 'requestOrigin', dependencies: ['services'] },
);
