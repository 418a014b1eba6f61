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

describe('products wired by catalogue data', () => {
  const env = (composeYaml: string, service: string): Record<string, string> => (YAML.parse(composeYaml) as { services: Record<string, { environment?: Record<string, string> }> }).services[service]!.environment ?? {};

  it('Nextcloud with MariaDB and Redis uses both, and no PostgreSQL appears', () => {
    const stack = stackOf('Nextcloud with MariaDB and Redis at cloud.example.org on Hetzner');
    expect(stack.services.map((s) => s.name).sort()).toEqual(['caddy', 'mariadb', 'nextcloud', 'redis']);
    expect(env(stack.composeYaml, 'nextcloud')).toMatchObject({ MYSQL_HOST: 'mariadb', MYSQL_PASSWORD: '${MARIADB_PASSWORD}', REDIS_HOST: 'redis' });
    expect(env(stack.composeYaml, 'nextcloud')).not.toHaveProperty('POSTGRES_HOST');
    expect(stack.services.find((s) => s.name === 'nextcloud')!.dependsOn).toEqual(['mariadb', 'redis']);
  });

  it('a product needing a database gets its first choice, wired', () => {
    const stack = stackOf('Nextcloud at cloud.example.org');
    expect(env(stack.composeYaml, 'nextcloud')).toMatchObject({ POSTGRES_HOST: 'postgres', REDIS_HOST: 'redis' });
  });

  it('n8n paired with MySQL keeps its data in PostgreSQL and says why', () => {
    const stack = stackOf('n8n with MySQL at n8n.example.com');
    expect(env(stack.composeYaml, 'n8n')).toMatchObject({ DB_TYPE: 'postgresdb', DB_POSTGRESDB_HOST: 'postgres', N8N_HOST: 'n8n.example.com', WEBHOOK_URL: 'https://n8n.example.com/' });
    expect(stack.notes.join(' ')).toMatch(/n8n 1\.x no longer supports MySQL/);
  });

  it('backs up every stateful volume: dumps for databases, files for the rest', async () => {
    const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');
    const stack = stackOf('Vaultwarden and Nextcloud with Postgres at example.org on my VPS');
    const backup = planSteps(stack).find((s) => s.title === 'Schedule nightly backups')!.commands.join('\n');
    expect(backup).toMatch(/exec -T postgres sh -c 'pg_dump/);
    expect(backup).toMatch(/exec -T nextcloud tar -C \/var\/www\/html -czf - \. > \/opt\/stack\/backups\/nextcloud_data-/);
    expect(backup).toMatch(/exec -T vaultwarden tar -C \/data -czf - \. > \/opt\/stack\/backups\/vaultwarden_data-/);
    expect(backup).not.toMatch(/exec -T postgres tar/);
  });
});
