import YAML from 'yaml';

/**
 * Which services of a compose file run once and exit (a migration, an init or import task), read from the
 * file itself so every health gate (the start step's, the restore of the last healthy release, a roll
 * back, the verify step) agrees: such a service is done when its container exited with code 0
 * (`docker inspect` State.ExitCode), and failed when it exited with another code. The file says so by
 *  - `x-one-shot`: our mark (repositoryCompose.ts sets it on a repository's tasks);
 *  - `restart: "no"` written out (Compose's default, stated on purpose): Docker never starts it again, so
 *    exiting is how it ends (`restart: no` unquoted, YAML 1.1's false, is read the same);
 *  - another service `depends_on` it with `condition: service_completed_successfully`.
 * A service with no `restart` at all, or `on-failure` (common on long-running workers), is not one: neither
 * says the service is meant to end, and a server that exits 0 must still fail its gate.
 */

/** A compose service name as Docker accepts it: also safe inside a shell word and an ERE alternation. */
const SERVICE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

type Services = Record<string, Record<string, unknown> | null | undefined>;

export function oneShotServices(compose: string | Record<string, unknown> | null | undefined): string[] {
  const doc = typeof compose === 'string' ? (YAML.parse(compose) as Record<string, unknown> | null) : compose;
  const services = ((doc?.services ?? {}) as Services) ?? {};
  const once = new Set<string>();
  for (const [name, s] of Object.entries(services)) {
    if (!s) continue;
    const restart = s.restart;
    if (s['x-one-shot'] || restart === false || restart === 'no') once.add(name);
    const deps = s.depends_on;
    if (deps && typeof deps === 'object' && !Array.isArray(deps)) {
      for (const [d, spec] of Object.entries(deps as Record<string, { condition?: unknown } | null>)) if (spec?.condition === 'service_completed_successfully') once.add(d);
    }
  }
  return [...once].filter((n) => n in services && SERVICE_NAME.test(n)).sort();
}
