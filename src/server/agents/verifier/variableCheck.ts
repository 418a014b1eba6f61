import type { Finding, PlanFile } from './types';

/**
 * Compose interpolation: every `${VAR}` and `$VAR` in a compose value is supplied (a User Secret, which
 * the plan writes into `.env`, or a line of a `.env` file of the plan), has a default (`${VAR:-x}`,
 * `${VAR-x}`), or only selects an alternative (`${VAR:+x}`). `$$` is a literal dollar. A lone `$` that
 * starts no variable is an error of its own: Compose refuses the file.
 */

export interface Interpolation {
  name: string;
  /** `:-`, `-`, `:?`, `?`, `:+`, `+`, or '' for a plain reference. */
  operator: string;
}

/** Reads a compose string the way Compose interpolates it; `invalid` holds the text of malformed `$` uses. */
export function interpolations(value: string): { refs: Interpolation[]; invalid: string[] } {
  const refs: Interpolation[] = [];
  const invalid: string[] = [];
  let i = 0;
  while (i < value.length) {
    if (value[i] !== '$') {
      i += 1;
      continue;
    }
    const next = value[i + 1];
    if (next === '$') {
      i += 2;
      continue;
    }
    if (next === '{') {
      // Find the matching brace: a default may itself hold `${…}`.
      let depth = 1;
      let j = i + 2;
      while (j < value.length && depth > 0) {
        if (value[j] === '{') depth += 1;
        else if (value[j] === '}') depth -= 1;
        j += 1;
      }
      const body = value.slice(i + 2, j - 1);
      const m = depth === 0 ? body.match(/^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([\s\S]*))?$/) : null;
      if (!m) invalid.push(value.slice(i, Math.min(j, i + 40)));
      else {
        refs.push({ name: m[1]!, operator: m[2] ?? '' });
        if (m[3]) refs.push(...interpolations(m[3]).refs);
      }
      i = j;
      continue;
    }
    const bare = value.slice(i + 1).match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (bare) {
      refs.push({ name: bare[0], operator: '' });
      i += 1 + bare[0].length;
      continue;
    }
    invalid.push(value.slice(i, i + 20));
    i += 1;
  }
  return { refs, invalid };
}

function strings(value: unknown, path: string[] = []): Array<{ path: string; value: string }> {
  if (typeof value === 'string') return [{ path: path.join('.'), value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, [...path, String(i)]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, [...path, k]));
  return [];
}

/** Names a `.env`-style file of the plan sets (`NAME=value` lines). */
function envFileNames(files: PlanFile[]): string[] {
  return files
    .filter((f) => /(^|\/)\.?[\w-]*\.?env$/.test(f.path))
    .flatMap((f) => f.content.split('\n'))
    .map((l) => l.trim().replace(/^export\s+/, '').match(/^([A-Za-z_][A-Za-z0-9_]*)=/)?.[1])
    .filter((n): n is string => Boolean(n));
}

export function variableFindings(composeRaw: Record<string, unknown>, secrets: string[], files: PlanFile[]): Finding[] {
  const supplied = new Set([...secrets, ...envFileNames(files)]);
  const findings: Finding[] = [];
  const reported = new Set<string>();
  for (const { path, value } of strings(composeRaw)) {
    // Extension fields (x-…) are not interpolated into anything a container sees.
    if (/(^|\.)x-/.test(path)) continue;
    const { refs, invalid } = interpolations(value);
    for (const bad of invalid) {
      findings.push({ severity: 'error', code: 'compose-bad-dollar', message: `"${bad}" is not a variable Compose understands; write $$ for a literal dollar`, where: `docker-compose.yml ${path}` });
    }
    for (const r of refs) {
      if (supplied.has(r.name) || ['-', ':-', '+', ':+'].includes(r.operator) || reported.has(r.name)) continue;
      reported.add(r.name);
      findings.push({
        severity: 'error',
        code: 'undefined-variable',
        message: `\${${r.name}} is neither a User Secret nor set in the plan's .env, so Compose ${r.operator.includes('?') ? 'refuses to start' : 'puts an empty string there'}: declare ${r.name} as a User Secret or give it a default (\${${r.name}:-value})`,
        where: `docker-compose.yml ${path}`,
      });
    }
  }
  return findings;
}
