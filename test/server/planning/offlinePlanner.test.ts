import YAML from 'yaml';
import { isRequirementsComplete, parseRequirementsDocument } from '../../../src/shared/requirementsDocument';
import { composeStack, validateCompose } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { readStackDefinition } from '../../../src/server/agents/offline/documents';
import { plan } from '../../../src/server/agents/offline/planner';
import { converse, plans, servicesOf, SYSTEM, type Conversation } from '../helpers/plannerConversation';

function expectComplete(c: Conversation): void {
  expect(c.ready).toBe(true);
  expect(isRequirementsComplete(c.document)).toBe(true);
  expect(c.document).toContain('User Secrets Configuration:');
  const parsed = parseRequirementsDocument(c.document);
  expect(Object.keys(parsed.cloud).sort()).toEqual(['Compute', 'Networking', 'Provider', 'Region', 'Storage']);
}

function expectValid(compose: string, secrets: Array<{ name: string }>): void {
  expect(validateCompose(compose, secrets.map((s) => s.name))).toEqual([]);
}

describe('offline planner: named stacks', () => {
  test('a basic VPS: asks what is missing, then completes as a prepared server with no placeholder container', () => {
    const c = converse(['I need a basic VPS', 'defaults for the rest']);
    expect(c.replies[0]).toContain('how much load do you expect');
    expectComplete(c);
    const p = plans(c.document);
    expect(p.compose).toBe('');
    expect(c.document).toContain('Nothing runs in containers: no software was named');
    // An existing server keeps SSH open as it is: no ADMIN_CIDR to restrict it to.
    expect(c.secrets.map((s) => s.name)).toEqual(['SERVER_HOST', 'SERVER_USER', 'SSH_PRIVATE_KEY']);
    expect(p.implementation).toMatch(/## Step 1: /);
    expect(p.architecture).toContain('```mermaid');
  });

  test('a VPS with MySQL keeps the database off the internet', () => {
    const c = converse(['A VPS with MySQL on DigitalOcean in Frankfurt, about 50 users, 20 GB of data']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['mysql']);
    expect(p.compose).toContain('127.0.0.1:3306:3306');
    expect(p.compose).toContain('mysql:8.4.2');
    expect(c.document).toMatch(/Region: fra1/);
    expectValid(p.compose, c.secrets);
    expect(p.implementation).toContain('doctl compute droplet create');
    expect(p.implementation).toContain('mysqldump');
  });

  test('a VPS with PostgreSQL', () => {
    const c = converse(['vps with postgresql please', 'my own server in Germany, light traffic']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['postgres']);
    expect(p.compose).toContain('pg_isready');
    expectValid(p.compose, c.secrets);
  });

  test('an ELK stack sizes the machine for Elasticsearch and sets the kibana_system password', () => {
    const c = converse(['Set up an ELK stack for centralized logging on AWS eu-west-1', 'around 200 users, 100 GB of log data']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['elasticsearch', 'kibana', 'logstash']);
    expect(c.document).toMatch(/Compute: t3\.(large|xlarge)/);
    expectValid(p.compose, c.secrets);
    expect(p.implementation).toContain('vm.max_map_count=262144');
    expect(p.implementation).toContain('kibana_system/_password');
  });

  test('an EC2 instance with SSH access', () => {
    const c = converse(['I need an EC2 instance with SSH access', 'just a simple web server, us-east-1, small load, no domain']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['web']);
    expect(c.secrets.map((s) => s.name)).toEqual(expect.arrayContaining(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'ADMIN_CIDR', 'SSH_PUBLIC_KEY']));
    expect(p.implementation).toContain('allow 22 "$ADMIN_CIDR"');
    expect(p.implementation).toContain('allow 22 "$SANDBOX_CIDR"');
    expect(p.implementation).toContain('aws ec2 run-instances');
    expectValid(p.compose, c.secrets);
  });

  test('Prometheus with Grafana', () => {
    const c = converse(['Prometheus with Grafana for monitoring on Hetzner', 'nbg1, a team of 10, grafana at monitoring.example.org']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['caddy', 'grafana', 'node-exporter', 'prometheus']);
    expect(p.architecture).toContain('prometheus/prometheus.yml');
    expect(p.architecture).toContain('grafana/provisioning/datasources/datasources.yml');
    expectValid(p.compose, c.secrets);
  });

  test('n8n behind a reverse proxy with SSL and a domain', () => {
    const c = converse(['n8n behind a reverse proxy with SSL on my domain n8n.example.com', 'an existing VPS, about 20 workflows']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['caddy', 'n8n']);
    const compose = YAML.parse(p.compose) as { services: Record<string, { environment?: Record<string, string>; ports?: string[] }> };
    expect(compose.services.n8n!.environment!.WEBHOOK_URL).toBe('https://n8n.example.com/');
    expect(compose.services.n8n!.ports).toBeUndefined();
    expect(compose.services.caddy!.ports).toEqual(['80:80', '443:443']);
    expect(p.architecture).toContain('n8n.example.com {');
    expect(c.secrets.map((s) => s.name)).toEqual(expect.arrayContaining(['ACME_EMAIL', 'N8N_ENCRYPTION_KEY']));
    expectValid(p.compose, c.secrets);
    expect(p.implementation).toContain('Point DNS at the server');
  });
});

describe('offline planner: combinations, however phrased', () => {
  test.each([
    [
      'a Django app with postgres and redis cache behind nginx with https at shop.example.com on AWS in Frankfurt for 2000 users',
      ['app', 'certbot', 'postgres', 'proxy', 'redis'],
    ],
    ['node.js api, mongodb, rabbitmq message queue, monitoring, traefik, api.example.io, digitalocean nyc3, 100 rps', ['app', 'grafana', 'mongo', 'node-exporter', 'prometheus', 'rabbitmq', 'traefik']],
    ['n8n with postgres and grafana + prometheus, caddy TLS for flows.example.net, hetzner fsn1, small team', ['caddy', 'grafana', 'n8n', 'node-exporter', 'postgres', 'prometheus']],
    ['Spring Boot service with MySQL and Kafka, no domain, my own server, 500 users', ['app', 'kafka', 'mysql']],
    ['ELK plus Prometheus and Grafana on gcp europe-west1, 50 GB disk, low traffic', ['elasticsearch', 'grafana', 'kibana', 'logstash', 'node-exporter', 'prometheus']],
  ])('%s', (request, expected) => {
    const c = converse([request, 'defaults are fine']);
    expectComplete(c);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(expected);
    expectValid(p.compose, c.secrets);
    for (const image of p.compose.matchAll(/image: (\S+)/g)) expect(image[1]).toMatch(/:[\w.-]+$/);
  });

  test('negations and replacements: MySQL instead of Postgres, no redis', () => {
    const f = extractFacts(['web app with postgres and redis', 'actually use MySQL instead of Postgres, and no redis']);
    expect([...f.components].sort()).toEqual(['app', 'mysql']);
  });

  test('the architect applies changes asked in its own chat', () => {
    const c = converse(['n8n on my VPS, no domain, light use']);
    expectComplete(c);
    const reply = plan(SYSTEM.architect(c.document), [{ role: 'user', content: 'Generate architecture plan' }, { role: 'assistant', content: '...' }, { role: 'user', content: 'please add postgres and redis' }]);
    const compose = (reply.toolCalls[0]!.args.plan as string).match(/```yaml\n([\s\S]*?)\n```/)![1]!;
    expect(servicesOf(compose)).toEqual(['n8n', 'postgres', 'redis']);
  });

  test('the implementation plan deploys exactly the architecture (stack definition round trip)', () => {
    const c = converse(['a Flask app with postgres behind caddy at app.example.com on aws us-west-2, 300 users']);
    const p = plans(c.document);
    const def = readStackDefinition(p.architecture)!;
    const again = composeStack(def.facts, { repository: def.repository });
    expect(again.composeYaml).toBe(p.compose + '\n');
    expect(p.implementation).toContain(p.compose);
  });

  test.each([
    ['n8n behind a reverse proxy with SSL on automations.example.com, on a Hetzner VPS, small team', 'Germany please'],
    ['A VPS with MySQL on DigitalOcean in Frankfurt, about 50 users, 100 GB of data'],
    ['ELK stack on AWS in Ireland, 500 GB of log data, 20 users'],
  ])('the architecture keeps the machine the requirements sized (disk, memory, type): %s', (...answers) => {
    const c = converse(answers);
    expectComplete(c);
    const disk = (text: string, re: RegExp): number => Number(text.match(re)![1]);
    const required = disk(c.document, /^- Disk: (\d+) GB$/m);
    const compute = parseRequirementsDocument(c.document).cloud.Compute!;
    const def = readStackDefinition(plans(c.document).architecture)!;
    const again = composeStack(def.facts, { repository: def.repository });
    expect(again.machine.diskGb).toBe(required);
    expect(compute).toContain(`${again.machine.instanceType} (${again.machine.vcpus} vCPU, ${again.machine.memoryGb} GB RAM)`);
  });

  test('requirements are not ready while questions are open', () => {
    const c = converse(['I want to host something']);
    expect(c.ready).toBe(false);
    expect(isRequirementsComplete(c.document)).toBe(false);
    expect(c.replies[0]).toContain('What should the server run');
  });
});
