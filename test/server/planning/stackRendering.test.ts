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

  it('backs up every stateful volume: dumps for databases, files for the rest, skipping what the model says', async () => {
    const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');
    const { modelOfStack, renderStack } = await import('../../../src/server/agents/offline/stackModelBridge');
    const stack = stackOf('Vaultwarden and Nextcloud with Postgres at example.org on my VPS');
    const backup = planSteps(stack).find((s) => /restic/.test(s.title))!.commands.join('\n');
    expect(backup).toMatch(/exec -T postgres sh -c 'pg_dump/);
    expect(backup).toMatch(/exec -T nextcloud tar -C '\/var\/www\/html' -cf - \. > "\$stage\/volumes\/nextcloud_data\.tar"/);
    expect(backup).toMatch(/exec -T vaultwarden tar -C '\/data' -cf - \. > "\$stage\/volumes\/vaultwarden_data\.tar"/);
    expect(backup).not.toMatch(/exec -T postgres tar/);
    // The model's choices reach the plan: a skipped component is not backed up, the destination is named.
    const model = modelOfStack(stack);
    model.backup = { ...model.backup, skip: ['vaultwarden'], destination: 'sftp:restic@backup.example.net:/srv/restic' };
    const step = planSteps(renderStack(model)).find((s) => /restic/.test(s.title))!;
    expect(step.title).toBe('Back up off the server, encrypted (restic)');
    expect(step.description).toContain('the SSH host backup.example.net port 22 as user restic, folder /srv/restic (over SFTP)');
    expect(step.commands.join('\n')).not.toMatch(/exec -T vaultwarden/);
    model.backup = { ...model.backup, enabled: false };
    expect(planSteps(renderStack(model)).some((s) => /restic|backup/i.test(s.title))).toBe(false);
  });

  it('without a destination the plan says the backups stay on the server and claims none off it', async () => {
    const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');
    const steps = planSteps(stackOf('Postgres on my VPS'));
    const step = steps.find((s) => /restic/.test(s.title))!;
    expect(step.title).toMatch(/on the server only.*no destination chosen/);
    expect(step.description).toMatch(/^No backup destination is chosen, so these backups stay on the server's own disk and are lost with it: not off-server backups\./);
    expect(steps.map((s) => `${s.title} ${s.description}`).join('\n')).not.toMatch(/off the server, encrypted/);
  });
});

describe("the target server's ports in use", () => {
  it('move what the stack publishes to a free port, naming what holds it', async () => {
    const { modelOfStack, renderStack } = await import('../../../src/server/agents/offline/stackModelBridge');
    const model = modelOfStack(stackOf('PostgreSQL and Redis with Caddy in front on my server deploy@203.0.113.7'));
    model.serverFacts = { inspectedAt: '2026-01-01T00:00:00Z', portsInUse: [{ port: 80, protocol: 'tcp', holder: 'container old-web (compose project shop)' }], containers: [], composeProjects: ['shop'] };
    const stack = renderStack(model);
    expect(ports(stack.composeYaml).caddy).toEqual(['8080:80']);
    expect(stack.notes.join(' ')).toMatch(/caddy is published on port 8080 instead of 80: the server already uses port 80 \(container old-web \(compose project shop\)\)/);
  });

  it('never publish one host port twice within the stack', () => {
    const stack = stackOf('Grafana and Gitea and Homepage on my VPS, no domain');
    const hostPorts = Object.values(ports(stack.composeYaml)).flat().map((p) => p.split(':').slice(-2)[0]);
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
  });

  it('the deploy stops at the server check, naming what holds a port, before anything starts', async () => {
    const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');
    const check = planSteps(stackOf('PostgreSQL and Redis with Caddy in front on my server deploy@203.0.113.7')).find((s) => s.title.startsWith('Check what the server has'))!;
    expect(check.commands[0]).toMatch(/for p in 80 5432 6379; do/);
    expect(check.commands[0]).toMatch(/port \$p is already in use on the server by \$held/);
  });
  const held = (ports: number[], holder: string) => ({ inspectedAt: '2026-01-01T00:00:00Z', portsInUse: ports.map((port) => ({ port, protocol: 'tcp' as const, holder })), containers: [], composeProjects: [] });

  it('with a domain and 80 and 443 held by a proxy already there, the stack adds none: it listens on loopback and says which site to add', () => {
    const stack = composeStack(extractFacts(['n8n on my server deploy@203.0.113.7 at flows.example.org']), { serverFacts: held([80, 443], 'nginx (host process)') });
    expect(stack.proxy).toBeUndefined();
    expect(ports(stack.composeYaml).n8n).toEqual(['127.0.0.1:5678:5678']);
    expect(stack.notes.join(' ')).toContain('The server already holds nginx (host process) on ports 80 and 443, so this plan adds no reverse proxy of its own');
    expect(stack.notes.join(' ')).toContain('flows.example.org → http://127.0.0.1:5678 (n8n)');
  });

  it('without a domain and 80 held, each web service gets a free port of its own, none the server uses', () => {
    const stack = composeStack(extractFacts(['uptime kuma and n8n on my server deploy@203.0.113.7, no domain']), { serverFacts: held([80, 3001], 'apache2') });
    const hostPorts = Object.values(ports(stack.composeYaml)).flat().map((p) => Number(p.split(':').slice(-2)[0]));
    expect(hostPorts).not.toContain(80);
    expect(hostPorts).not.toContain(3001);
  });
});

describe('every link has a network both ends share', () => {
  it('Prometheus reaches every service it scrapes, the proxy included', () => {
    const compose = YAML.parse(stackOf('prometheus and grafana on hetzner at monitor.example.org').composeYaml) as { services: Record<string, { networks: string[] }> };
    const shared = (a: string, b: string) => compose.services[a]!.networks.some((n) => compose.services[b]!.networks.includes(n));
    expect(shared('prometheus', 'caddy')).toBe(true);
    expect(shared('grafana', 'prometheus')).toBe(true);
  });

  it("a database's own web interface stays on loopback like the database", () => {
    expect(ports(stackOf('node-red, mosquitto and influxdb on my server deploy@203.0.113.7').composeYaml).influxdb).toEqual(['127.0.0.1:8086:8086']);
  });
});

describe('validation follows the stack model', () => {
  it('checks each public endpoint through its proxy, each link from its user, and the backup', async () => {
    const { renderImplementationPlan } = await import('../../../src/server/agents/offline/documents');
    const { renderValidationPlan } = await import('../../../src/server/agents/offline/validationPlanner');
    const { parsePlanSteps } = await import('../../../src/shared/planSteps');
    const implementation = renderImplementationPlan(stackOf('Nextcloud with MariaDB at cloud.example.org on my server deploy@203.0.113.7'));
    const executed = parsePlanSteps(implementation).map((x) => ({ step_number: x.stepNumber, status: 'completed', description: x.description, command: x.command }));
    const checks = parsePlanSteps(renderValidationPlan(executed, implementation));
    const byTitle = Object.fromEntries(checks.map((c) => [c.description, c.command ?? '']));
    expect(byTitle['nextcloud answers through caddy at https://cloud.example.org/']).toContain('--resolve cloud.example.org:443:$IP');
    expect(byTitle['nextcloud resolves mariadb']).toMatch(/--network "container:\$from" --entrypoint sh "\$img" -c 'getent hosts mariadb \|\| nslookup mariadb'/);
    expect(byTitle['nextcloud resolves redis']).toBeDefined();
    expect(byTitle['The latest backup restores (restore drill)']).toContain('as_root /usr/local/sbin/stack-restore-drill');
  });
});
