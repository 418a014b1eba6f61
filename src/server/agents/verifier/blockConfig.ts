/**
 * A small reader for the two block-structured proxy configurations plans write: the Caddyfile (one
 * directive a line, `{ }` blocks) and nginx.conf (directives end with `;`, `{ }` blocks). Both become a
 * tree of directives: a name, its arguments, and its block's directives. Quotes and comments are
 * honoured; Caddy's `{$VAR}` and `{env.VAR}` placeholders stay words.
 */

export interface Directive {
  name: string;
  args: string[];
  block: Directive[] | undefined;
  line: number;
}

interface Token {
  text: string;
  line: number;
  /** `{`, `}`, `;` or a line end (Caddyfile only), as structure rather than words. */
  kind: 'word' | 'open' | 'close' | 'end';
}

function tokenize(text: string, newlineEnds: boolean): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  const push = (t: Token): void => void out.push(t);
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      if (newlineEnds) push({ text: '\n', line, kind: 'end' });
      line += 1;
      i += 1;
    } else if (c === ' ' || c === '\t' || c === '\r') i += 1;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i += 1;
    else if (c === ';' && !newlineEnds) {
      push({ text: ';', line, kind: 'end' });
      i += 1;
    } else if (c === '}') {
      push({ text: '}', line, kind: 'close' });
      i += 1;
    } else if (c === '{' && (i + 1 >= text.length || /\s/.test(text[i + 1]!) || !newlineEnds)) {
      // In a Caddyfile `{` opens a block only as a word of its own; `{$VAR}` is a placeholder.
      push({ text: '{', line, kind: 'open' });
      i += 1;
    } else if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      let word = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) j += 1;
        if (text[j] === '\n') line += 1;
        word += text[j];
        j += 1;
      }
      push({ text: word, line, kind: 'word' });
      i = j + 1;
    } else {
      let j = i;
      let depth = 0;
      while (j < text.length) {
        const d = text[j]!;
        if (d === '{') depth += 1;
        else if (d === '}') {
          if (depth === 0) break;
          depth -= 1;
        } else if (depth === 0 && (/\s/.test(d) || (d === ';' && !newlineEnds))) break;
        j += 1;
      }
      push({ text: text.slice(i, j), line, kind: 'word' });
      i = j;
    }
  }
  return out;
}

function build(tokens: Token[], at: { i: number }): Directive[] {
  const list: Directive[] = [];
  let words: Token[] = [];
  const flush = (block?: Directive[]): void => {
    if (words.length || block) list.push({ name: words[0]?.text ?? '', args: words.slice(1).map((w) => w.text), block, line: words[0]?.line ?? 0 });
    words = [];
  };
  while (at.i < tokens.length) {
    const t = tokens[at.i++]!;
    if (t.kind === 'word') words.push(t);
    else if (t.kind === 'end') flush();
    else if (t.kind === 'open') flush(build(tokens, at));
    else {
      flush();
      return list;
    }
  }
  flush();
  return list;
}

export function parseCaddyfile(text: string): Directive[] {
  return build(tokenize(text, true), { i: 0 });
}

export function parseNginx(text: string): Directive[] {
  return build(tokenize(text, false), { i: 0 });
}

/** Every directive of a tree, depth first, with the chain of blocks it sits in. */
export function* walk(tree: Directive[], parents: Directive[] = []): Generator<{ d: Directive; parents: Directive[] }> {
  for (const d of tree) {
    yield { d, parents };
    if (d.block) yield* walk(d.block, [...parents, d]);
  }
}

export interface CaddySite {
  addresses: string[];
  upstreams: string[];
  line: number;
}

/**
 * The sites of a Caddyfile: the global options block (no address) is left out; `reverse_proxy`
 * upstreams are its arguments that are not matchers, and the `to` lines of its block.
 */
export function caddySites(tree: Directive[]): CaddySite[] {
  const sites: CaddySite[] = [];
  for (const top of tree) {
    if (!top.block || top.name === '' || top.name.startsWith('(')) continue;
    const upstreams: string[] = [];
    for (const { d } of walk(top.block)) {
      if (d.name === 'reverse_proxy') {
        // A matcher comes first: `*`, `/path…` or `@name`.
        upstreams.push(...d.args.filter((a, i) => !(i === 0 && (a === '*' || a.startsWith('/') || a.startsWith('@')))));
        for (const inner of d.block ?? []) if (inner.name === 'to') upstreams.push(...inner.args);
      }
    }
    sites.push({ addresses: [top.name, ...top.args].flatMap((a) => a.split(',')).filter(Boolean), upstreams, line: top.line });
  }
  return sites;
}

export interface NginxServer {
  listens: string[];
  ssl: boolean;
  serverNames: string[];
  upstreams: string[];
  line: number;
}

/** The server blocks of an nginx.conf, with `proxy_pass` targets resolved through its `upstream` blocks. */
export function nginxServers(tree: Directive[]): NginxServer[] {
  const upstreamBlocks = new Map<string, string[]>();
  for (const { d } of walk(tree)) {
    if (d.name === 'upstream' && d.block) upstreamBlocks.set(d.args[0] ?? '', d.block.filter((x) => x.name === 'server').map((x) => x.args[0] ?? ''));
  }
  const servers: NginxServer[] = [];
  for (const { d } of walk(tree)) {
    if (d.name !== 'server' || !d.block) continue;
    const listens = d.block.filter((x) => x.name === 'listen').map((x) => x.args.join(' '));
    const upstreams: string[] = [];
    for (const { d: inner } of walk(d.block)) {
      for (const name of ['proxy_pass', 'grpc_pass', 'uwsgi_pass', 'fastcgi_pass']) {
        if (inner.name !== name || !inner.args[0]) continue;
        const target = inner.args[0];
        const host = target.replace(/^[a-z]+:\/\//, '').split(/[/:]/)[0]!;
        upstreams.push(...(upstreamBlocks.get(host) ?? [target]));
      }
    }
    servers.push({
      listens,
      ssl: listens.some((l) => /\bssl\b/.test(l)) || d.block.some((x) => x.name === 'ssl_certificate'),
      serverNames: d.block.filter((x) => x.name === 'server_name').flatMap((x) => x.args),
      upstreams,
      line: d.line,
    });
  }
  return servers;
}
