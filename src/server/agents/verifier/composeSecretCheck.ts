import { TEXT_SECRETS } from './catalogueKnowledge';
import type { ComposeModel } from './composeModel';
import { isCredentialName, type SecretOptions } from './secretArguments';
import { secretFindings } from './secretFindings';
import type { Finding } from './types';
import { interpolations } from './variableCheck';

/**
 * A container's processes are the server's processes: what a service's `command`, `entrypoint` or
 * healthcheck puts on a command line, `ps` on the server shows. Two ways a secret gets there: Compose
 * substitutes `${SECRET}` into the text itself (every word of an exec form is an argument; a shell form is
 * `sh -c`'s argument), or the shell in the container expands a variable of the service's environment that
 * holds a secret (`$${MYSQL_ROOT_PASSWORD}`) into a program's argument, read with the bash parser.
 */

const SHELLS = new Set(['sh', 'bash', '/bin/sh', '/bin/bash']);

/**
 * Servers that write their title over their own command line as they start (`redis-server *:6379`, from
 * proc-title-template): ps shows a password given as an argument only for their first milliseconds. Said,
 * not blocked: the other way (a config on stdin, `redis-server -`) needs `sh -c`, which the images'
 * entrypoints then run as root instead of dropping to the redis user.
 */
const OWN_TITLE: Record<string, string> = {
  'redis-server': 'redis-server replaces its command line with its title as it starts',
  'valkey-server': 'valkey-server replaces its command line with its title as it starts',
};

/** What runs: the argv Compose hands the runtime, and the shell text inside it when that argv is `sh -c …`. */
function commandsOf(value: unknown, healthcheck: boolean): { argv: string[]; shell?: string } | undefined {
  if (typeof value === 'string') return healthcheck ? { argv: ['sh', '-c', value], shell: value } : { argv: [value] };
  if (!Array.isArray(value)) return undefined;
  const words = value.map(String);
  if (healthcheck) {
    if (words[0] === 'CMD-SHELL') return { argv: ['sh', '-c', words[1] ?? ''], shell: words[1] ?? '' };
    if (words[0] === 'CMD') return { argv: words.slice(1) };
    return undefined;
  }
  return SHELLS.has(words[0] ?? '') && words[1] === '-c' ? { argv: words, shell: words[2] ?? '' } : { argv: words };
}

/** Each service's environment variables that hold a User Secret (variable → the secret), as the shell in its container sees them. */
function heldSecrets(compose: ComposeModel, userSecrets: Set<string>): Map<string, Map<string, string>> {
  return new Map(
    compose.services.map((service) => [
      service.name,
      new Map(Object.entries(service.environment).flatMap(([name, value]) => interpolations(value).refs.filter((r) => userSecrets.has(r.name)).slice(0, 1).map((r): [string, string] => [name, r.name]))),
    ]),
  );
}

/**
 * What a step's `docker exec NAME …` or `compose exec SERVICE …` finds in the container's environment: the
 * service's variables that hold a User Secret, or every service's when the name is none of them (a
 * container name built by Compose, a throwaway container started from a service's image).
 */
export function containerSecrets(compose: ComposeModel, secrets: string[]): SecretOptions {
  const held = heldSecrets(compose, new Set(secrets.filter((name) => !TEXT_SECRETS.has(name))));
  const byContainer = new Map(compose.services.flatMap((s) => (typeof s.raw.container_name === 'string' ? [[s.raw.container_name, s.name] as const] : [])));
  const every = new Map([...held.values()].flatMap((m) => [...m]));
  return { container: (name) => held.get(byContainer.get(name ?? '') ?? name ?? '') ?? every };
}

export function composeSecretFindings(compose: ComposeModel, secrets: string[]): Finding[] {
  const findings: Finding[] = [];
  const userSecrets = new Set(secrets.filter((name) => !TEXT_SECRETS.has(name)));
  for (const service of compose.services) {
    // The service's environment variables that hold a User Secret, as the shell in the container sees them.
    const held = [...(heldSecrets({ ...compose, services: [service] }, userSecrets).get(service.name)?.keys() ?? [])];
    const healthcheck = service.raw.healthcheck as { test?: unknown } | undefined;
    const places: Array<[string, unknown, boolean]> = [
      ['command', service.raw.command, false],
      ['entrypoint', service.raw.entrypoint, false],
      ['healthcheck.test', healthcheck?.test, true],
    ];
    for (const [key, value, isHealthcheck] of places) {
      const run = commandsOf(value, isHealthcheck);
      if (!run) continue;
      const where = `docker-compose.yml services.${service.name}.${key}`;
      const substituted = [...new Set(run.argv.flatMap((word) => interpolations(word).refs.map((r) => r.name)).filter((n) => userSecrets.has(n)))];
      const titled = run.shell === undefined ? OWN_TITLE[run.argv[0] ?? ''] : undefined;
      for (const name of substituted) {
        const shown = `Compose writes the User Secret ${name} into the command line of ${service.name}'s ${key}, where ps shows its value to every user of the server`;
        findings.push({
          severity: titled || !isCredentialName(name) ? 'warning' : 'error',
          code: 'secret-on-command-line',
          message: titled
            ? `${shown} until ${titled} (a few milliseconds)`
            : `${shown}: give it to the program through the service's environment or a file of mode 0600 (a shell form can read $${name} from the environment and pass it on stdin)`,
          where,
        });
      }
      // `$$` is the container's own `$`.
      if (run.shell !== undefined) findings.push(...secretFindings(run.shell.replace(/\$\$/g, '$'), held, 'the container', () => where, { container: () => new Map(held.map((n) => [n, n])) }));
    }
  }
  return findings;
}
