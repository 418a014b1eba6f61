/**
 * The hot polls' paths, matched before Fastify's router (hotPoll.ts answers a current poll there).
 * Only the plainest form of a path is taken: letters, digits, `/`, `_` and `-`, no escapes, no query,
 * no empty or trailing segment. Any other spelling that Fastify's router would route the same way goes
 * through Fastify, whose answer is the same one: this matcher may miss a poll, never take a request
 * to a route Fastify would not send it to (`checkRoutedAlike` refuses to start when it could).
 */

/** The characters a path is matched with as it is; anything else (`%`, `.`, `;`, `?`, `*`…) goes Fastify's way. */
const PLAIN_PATH = /^[A-Za-z0-9/_-]+$/;
/** find-my-way's maxParamLength, Fastify's default: a longer parameter is Fastify's to refuse. */
const MAX_PARAM_LENGTH = 100;

/** One segment of a route's URL: a literal, or a parameter (`:projectId`) by name. */
type Segment = { literal: string } | { param: string };

interface HotPath<R> {
  url: string;
  segments: Segment[];
  route: R;
  /** The whole path as one anchored expression, a group per parameter: one match per request, no split. */
  pattern: RegExp;
  /** The parameters' names, in the order of the pattern's groups. */
  names: string[];
  /** A path without parameters answers this same match every time. */
  match: HotPollMatch<R>;
}

export interface HotPollMatch<R> {
  route: R;
  params: Record<string, string>;
}

export interface HotPollPaths<R> {
  /** A GET route's URL as Fastify registered it (prefix included) and what it answers with; false when its form is not matched here. */
  add(url: string, route: R): boolean;
  /** Every other GET route's URL, for `checkRoutedAlike`. */
  see(url: string): void;
  /** The route and parameters of `url` when it is one of the added routes in its plainest form. */
  find(url: string): HotPollMatch<R> | undefined;
  /**
   * Throws when a request this matcher takes could be routed elsewhere by Fastify: another GET route
   * (static, with a parameter of a pattern of its own, or a wildcard) that takes one of the same paths.
   */
  checkRoutedAlike(): void;
}

function segmentsOf(url: string): Segment[] | undefined {
  const parts = url.split('/');
  if (parts[0] !== '') return undefined;
  const segments: Segment[] = [];
  for (const part of parts.slice(1)) {
    if (/^:[A-Za-z_][A-Za-z0-9_]*$/.test(part)) segments.push({ param: part.slice(1) });
    else if (part !== '' && PLAIN_PATH.test(part)) segments.push({ literal: part });
    else return undefined; // a parameter with a pattern, a wildcard, an empty segment: Fastify's alone
  }
  return segments;
}

export function hotPollPaths<R>(): HotPollPaths<R> {
  /** Routes without parameters, by their exact URL. */
  const exact = new Map<string, HotPath<R>>();
  const withParams: HotPath<R>[] = [];
  const others: string[] = [];

  const find = (url: string): HotPollMatch<R> | undefined => {
    const fixed = exact.get(url);
    if (fixed) return fixed.match;
    for (const path of withParams) {
      const groups = path.pattern.exec(url);
      if (groups === null) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < path.names.length; i += 1) params[path.names[i]!] = groups[i + 1]!;
      return { route: path.route, params };
    }
    return undefined;
  };

  return {
    add(url, route) {
      const segments = segmentsOf(url);
      if (!segments) return false;
      // A literal is plain (segmentsOf), so it stands for itself; a parameter is one plain segment
      // of 1 to MAX_PARAM_LENGTH characters: the same paths PLAIN_PATH and find-my-way take.
      const source = segments.map((segment) => ('literal' in segment ? `/${segment.literal}` : `/([A-Za-z0-9_-]{1,${MAX_PARAM_LENGTH}})`)).join('');
      const names = segments.flatMap((segment) => ('param' in segment ? [segment.param] : []));
      const path: HotPath<R> = { url, segments, route, pattern: new RegExp(`^${source}$`), names, match: { route, params: {} } };
      if (segments.every((segment) => 'literal' in segment)) exact.set(url, path);
      else withParams.push(path);
      return true;
    },
    see(url) {
      others.push(url);
    },
    find,
    checkRoutedAlike() {
      const hot = new Set([...exact.keys(), ...withParams.map((path) => path.url)]);
      for (const url of others) {
        if (hot.has(url)) continue;
        // The other route's parameters and wildcards as a plain value: a path both would be asked for.
        const sample = url.replace(/:[^/]+/g, '1').replace(/\*/g, '1');
        const taken = find(sample);
        if (taken) throw new Error(`GET ${url} and a hot poll's route both take ${sample}: the poll's short way would answer for it`);
      }
    },
  };
}
