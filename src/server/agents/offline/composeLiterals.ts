/**
 * A repository's compose file as a deploy needs it, before it is adopted: the env files it reads joined
 * into each service's environment (so they work where compose runs, not only beside the checkout),
 * literal passwords and placeholders (`POSTGRES_PASSWORD: pass`, `SECRET_KEY_BASE=replace-me`) turned
 * into `${NAME}` User Secrets — also where the same password sits inside a connection URL — and the
 * defaults of `${VAR:-default}` written into ports, volumes and names, which steps read as they are.
 */

type Service = Record<string, unknown>;

/** Names whose values are credentials. */
const SECRET_NAME = /(PASSWORD|PASSWD|(^|_)PASS$|SECRET|TOKEN|API_?KEY|PRIVATE_KEY|(^|_)KEY$|(^|_)KEY_BASE$)/i;
/** Values an author writes for the person to replace. */
const PLACEHOLDER = /^(replace[-_ ]?me|change[-_ ]?me|changeit|change[-_ ]?this[\w-]*|generate[-_][\w-]*|your[-_][\w.-]*|<[^>]+>|x{3,}|todo|tbd|set[-_ ]?me|secret|password|pass|example)$/i;
/**
 * Variables an image reads once to create its own credentials. Sealed alone, the application — which the
 * repository leaves on its built-in default (Plausible's `postgres:postgres`) — could no longer log in,
 * so such a literal is sealed only where the same value is passed to another service too.
 */
const INIT_CREDENTIAL = /^(POSTGRES_PASSWORD|MYSQL_(ROOT_)?PASSWORD|MARIADB_(ROOT_)?PASSWORD|MONGO_INITDB_ROOT_PASSWORD|RABBITMQ_DEFAULT_PASS|REDIS_PASSWORD|CLICKHOUSE_PASSWORD|INFLUXDB_ADMIN_PASSWORD)$/;
const DEFAULTED = /\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}/g;

function parseDotenv(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/);
    if (!m) continue;
    let value = m[2]!.trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0]) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    out.push([m[1]!, value]);
  }
  return out;
}

function environmentMap(s: Service): Record<string, string> {
  const env = s.environment;
  if (Array.isArray(env)) {
    return Object.fromEntries(env.filter((e): e is string => typeof e === 'string').map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, `\${${e}}`])));
  }
  if (env && typeof env === 'object') return Object.fromEntries(Object.entries(env as Record<string, unknown>).map(([k, v]) => [k, v === null || v === undefined ? `\${${k}}` : String(v)]));
  return {};
}

const normalise = (dir: string, rel: string): string => {
  const out: string[] = [];
  for (const part of `${dir}/${rel}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
};

const withDefaults = (value: unknown, used: Map<string, string>): unknown => {
  if (typeof value === 'string') {
    return value.replace(DEFAULTED, (_whole, name: string, fallback: string) => {
      used.set(name, fallback);
      return fallback;
    });
  }
  if (Array.isArray(value)) return value.map((v) => withDefaults(v, used));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDefaults(v, used)]));
  return value;
};

const isLiteral = (value: string): boolean => value !== '' && !value.includes('${') && !/^\$[A-Za-z_]/.test(value);

export interface SealedCompose {
  doc: Record<string, unknown> | null;
  notes: string[];
}

export function sealLiterals(parsed: Record<string, unknown> | null, dir: string, envFiles: Record<string, string>): SealedCompose {
  if (!parsed || typeof parsed.services !== 'object' || !parsed.services) return { doc: parsed, notes: [] };
  const notes: string[] = [];
  const defaults = new Map<string, string>();
  const services: Record<string, Service> = {};
  const envs = new Map<string, Record<string, string>>();
  const fromFiles = new Map<string, Set<string>>();
  for (const [name, raw] of Object.entries(parsed.services as Record<string, Service>)) {
    const s: Service = { ...(raw ?? {}) };
    for (const key of ['ports', 'volumes', 'container_name']) if (s[key] !== undefined) s[key] = withDefaults(s[key], defaults);
    const env: Record<string, string> = {};
    const files = s.env_file === undefined ? [] : Array.isArray(s.env_file) ? s.env_file : [s.env_file];
    const kept: unknown[] = [];
    for (const f of files) {
      const rel = typeof f === 'string' ? f : String((f as { path?: unknown }).path ?? '');
      const text = envFiles[normalise(dir, rel)];
      if (text === undefined) {
        kept.push(f);
        continue;
      }
      // Empty values in a sample are options left unset: not passing them keeps the application's defaults.
      for (const [k, v] of parseDotenv(text)) if (v !== '') env[k] = v;
      fromFiles.set(name, new Set(Object.keys(env)));
      notes.push(`${name}: the variables of ${rel} are set in its environment, so they reach it where compose runs.`);
    }
    if (kept.length) s.env_file = kept;
    else delete s.env_file;
    Object.assign(env, environmentMap(s));
    envs.set(name, env);
    services[name] = s;
  }
  // An env file's example of an optional feature (Outline's AWS_S3_UPLOAD_BUCKET_URL=http://s3:4569) points
  // at a service the stack does not run: left unset, said so, rather than wired to nothing.
  const names = new Set(Object.entries(services).flatMap(([n, s]) => [n, s.container_name, s.hostname].filter((x): x is string => typeof x === 'string')));
  const unset: string[] = [];
  for (const [service, keys] of fromFiles) {
    const env = envs.get(service)!;
    for (const key of keys) {
      const host = env[key]?.match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]*@)?([A-Za-z0-9_-]+)(?::\d+)?(?:[/?#]|$)/)?.[1];
      if (host && host !== 'localhost' && !names.has(host)) {
        delete env[key];
        unset.push(`${key} (${host})`);
      }
    }
  }
  if (unset.length) notes.push(`Left unset, since they point at services the stack does not run: ${unset.join(', ')}. Set them to use those features.`);
  // First the credentials written as literals, then the same values inside connection URLs.
  const sealedValues = new Map<string, string>();
  const sealed: string[] = [];
  const kept: string[] = [];
  const allValues = [...envs.values()].flatMap((env) => Object.values(env));
  const usedElsewhere = (value: string): boolean => allValues.filter((v) => v === value || v.includes(`:${value}@`)).length > 1;
  // One password the repository passes under several names (listmonk's `POSTGRES_PASSWORD` and
  // `LISTMONK_db__password`, one YAML anchor) stays one secret, so the application still logs in to the
  // database; named by the database's own variable when one holds it. A placeholder is no such link:
  // `changeme` written for two passwords stands for two.
  const shared = new Map<string, string>();
  for (const env of envs.values()) {
    for (const [key, value] of Object.entries(env)) {
      if (!isLiteral(value) || !SECRET_NAME.test(key) || PLACEHOLDER.test(value)) continue;
      if (!shared.has(value) || (INIT_CREDENTIAL.test(key) && !INIT_CREDENTIAL.test(shared.get(value)!))) shared.set(value, key);
    }
  }
  for (const [service, env] of envs) {
    for (const [key, value] of Object.entries(env)) {
      if (!isLiteral(value) || !(SECRET_NAME.test(key) || PLACEHOLDER.test(value))) continue;
      if (INIT_CREDENTIAL.test(key) && !PLACEHOLDER.test(value) && !usedElsewhere(value)) {
        kept.push(`${service}'s ${key}`);
        continue;
      }
      const name = (SECRET_NAME.test(key) && shared.get(value)) || key;
      env[key] = `\${${name}}`;
      if (SECRET_NAME.test(key) && !sealedValues.has(value)) sealedValues.set(value, name);
      if (!sealed.includes(name)) sealed.push(name);
    }
  }
  for (const env of envs.values()) {
    for (const [key, value] of Object.entries(env)) {
      const url = value.match(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)([^@\s]+)(@.*)$/i);
      if (!url || !isLiteral(url[2]!)) continue;
      const name = sealedValues.get(url[2]!) ?? `${key}_PASSWORD`;
      env[key] = `${url[1]}\${${name}}${url[3]}`;
      if (!sealed.includes(name)) sealed.push(name);
    }
  }
  for (const [name, s] of Object.entries(services)) {
    const env = envs.get(name)!;
    if (Object.keys(env).length) s.environment = env;
  }
  if (kept.length) notes.push(`Kept as the repository writes them, since nothing in it passes them to the application, which then uses its own default: ${kept.join(', ')}. Change them only together with the application's database settings.`);
  if (sealed.length) notes.push(`Literal passwords and placeholders of the repository become User Secrets: ${sealed.join(', ')}.`);
  if (defaults.size) notes.push(`Variables with defaults keep them: ${[...defaults].map(([k, v]) => `${k} (${v || 'empty'})`).join(', ')}.`);
  return { doc: { ...parsed, services }, notes };
}
