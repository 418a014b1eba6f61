import YAML from 'yaml';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';

const stackOf = (...messages: string[]) => composeStack(extractFacts(messages));
const ports = (composeYaml: string): Record<string, string[]> =>
  Object.fromEntries(Object.entries((YAML.parse(composeYaml) as { services: Record<string, { ports?: string[] }> }).services).map(([n, s]) => [n, s.ports ?? []]));

describe('a proxy with nothing behind it', () => {
  it('Caddy answers with what the stack is, and Redis does not take its port', () => {
    const stack = stackOf('PostgreSQL and a Redis cache, with Caddy in front serving plain HTTP');
    const caddyfile = stack.files.find((f) => f.path === 'Caddyfile')!.content;
    expect(caddyfile).toMatch(/^:80 \{\n\trespond ".*runs PostgreSQL 16, Redis 7\.4.*nothing to forward to\." 200\n\}\n$/);
    expect(ports(stack.composeYaml).caddy).toEqual(['80:80']);
    expect(Object.values(ports(stack.composeYaml)).flat().filter((p) => /^(0\.0\.0\.0:)?80:/.test(p))).toEqual(['80:80']);
  });

  it('Nginx answers the same way, never with an empty server block', () => {
    const stack = stackOf('PostgreSQL and Redis with an nginx reverse proxy in front');
    const conf = stack.files.find((f) => f.path.endsWith('default.conf'))!.content;
    expect(conf).toMatch(/location \/ \{ default_type text\/plain; return 200 ".*runs PostgreSQL 16, Redis 7\.4/);
  });
});
