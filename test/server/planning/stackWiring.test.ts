import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { emptyFacts, type Facts } from '../../../src/server/agents/offline/facts';
import { readStackModel } from '../../../src/server/agents/offline/documents';
import { verifierFactsOf } from '../../../src/server/agents/verifier/stackModelFacts';
import { verifyPlans } from '../../../src/server/agents/verifier/verifyPlan';
import { converse, plans } from '../helpers/plannerConversation';
import { composeSpecErrors, dockerComposeAvailable, dockerComposeConfig } from '../helpers/composeChecks';

/** How the composer wires products from their catalogue data alone, and what works on the real images. */

const factsWith = (ids: string[], more: Partial<Facts> = {}): Facts => Object.assign(emptyFacts(), { provider: 'vps' as const }, more, { components: new Set(ids) });

/** The words of a healthcheck command, as the shell would split them (quotes kept out). */
const words = (test: string[]): string[] => (test[0] === 'CMD-SHELL' ? test.slice(1).join(' ').split(/\s+/) : test.slice(1)).map((w) => w.replace(/^['"]|['"]$/g, ''));

describe('healthchecks that work on the real images', () => {
  const services = Object.values(PRODUCTS).flatMap((p) => p.services.map((s) => [`${p.id}/${s.name}`, s] as const));

  test.each(services)('%s checks itself with a GET to its own container, or says why it cannot', (_, s) => {
    if (!s.healthcheck) {
      expect(s.noHealthcheck?.length).toBeGreaterThan(10);
      return;
    }
    const w = words(s.healthcheck.test);
    // A HEAD is not a GET: Caddy's admin API answers HEAD with 405, and health endpoints often do too.
    expect(w).not.toEqual(expect.arrayContaining(['--spider']));
    expect(w).not.toEqual(expect.arrayContaining(['-I']));
    expect(w).not.toEqual(expect.arrayContaining(['--head']));
    expect(w.join(' ')).not.toMatch(/--method[= ]HEAD|-X\s*HEAD/i);
    // An HTTP check asks the container itself, never another service's name.
    for (const url of w.filter((x) => /^https?:\/\//.test(x))) expect(new URL(url).hostname).toMatch(/^(127\.0\.0\.1|localhost|\[::1\])$/);
  });
});

describe('an empty stack says so', () => {
  test('every product named left out and no proxy asked: no placeholder container, the plan prepares the host and says why', () => {
    const facts = factsWith([], { unknown: [], skipped: ['Plex'] });
    const stack = composeStack(facts);
    expect(stack.hostOnly).toBe(true);
    expect(stack.services).toEqual([]);
    expect(stack.notes.join('\n')).toContain('Nothing runs in containers: Plex is not in the catalogue');
  });

  test('a proxy asked for with nothing behind it runs alone and serves a page saying what the stack is', () => {
    const facts = factsWith([], { skipped: ['Plex'], genericProxy: true });
    const stack = composeStack(facts, { slug: 'media' });
    expect(stack.services.map((s) => s.name)).toEqual(['caddy']);
    const caddyfile = stack.files.find((f) => f.path === 'Caddyfile')!.content;
    expect(caddyfile).toContain('respond "media: nothing runs here yet');
    expect(stack.notes.join('\n')).toContain('the proxy serves a page saying what this stack is');
  });
});

describe('Prometheus scrapes the proxy where the real image serves metrics', () => {
  test("Caddy's metrics are a site of their own inside the network; the admin API stays on the container's localhost", () => {
    const stack = composeStack(factsWith(['prometheus', 'uptime-kuma'], { domain: 'example.org', domains: [{ host: 'example.org' }], tls: true }));
    const caddy = stack.services.find((s) => s.name === 'caddy')!;
    const caddyfile = stack.files.find((f) => f.path === 'Caddyfile')!.content;
    expect(caddyfile).toContain(`:${caddy.metrics!.port} {\n\tmetrics\n}`);
    expect(caddyfile).toMatch(/^\{\n\temail \{\$ACME_EMAIL\}\n\tservers \{\n\t\tmetrics\n\t\}\n\}/);
    expect(caddyfile).not.toContain('admin');
    // Never published: only 80 and 443 leave the container.
    expect(caddy.publish).toEqual(['80:80', '443:443']);
    const scrape = YAML.parse(stack.files.find((f) => f.path.endsWith('prometheus.yml'))!.content) as { scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }> };
    expect(scrape.scrape_configs.find((j) => j.job_name === 'caddy')!.static_configs[0]!.targets).toEqual([`caddy:${caddy.metrics!.port}`]);
  });

  test('without a scraper, the Caddyfile has no metrics site', () => {
    const stack = composeStack(factsWith(['uptime-kuma'], { domain: 'example.org', domains: [{ host: 'example.org' }], tls: true }));
    expect(stack.files.find((f) => f.path === 'Caddyfile')!.content).not.toContain('metrics');
  });
});

describe("a product's public endpoints each reach their own upstream port", () => {
  const DEFAULTS = 'Go with sensible defaults for everything else.';
  const planned = async (says: string): Promise<{ architecture: string; implementation: string; compose: string; errors: string[] }> => {
    const c = converse([says, DEFAULTS]);
    expect(c.ready).toBe(true);
    const p = plans(c.document);
    const facts = verifierFactsOf(readStackModel(p.implementation) ?? readStackModel(p.architecture));
    const findings = await verifyPlans({ architecture: p.architecture, implementation: p.implementation, secrets: c.secrets.map((s) => s.name), ...facts });
    return { ...p, errors: findings.filter((f) => f.severity === 'error').map((f) => `${f.code}: ${f.message}`) };
  };

  test("MinIO at a domain: the domain goes to the S3 API, the console to a sub-domain of its own, nothing published but the proxy's ports", async () => {
    const p = await planned('MinIO at s3.example.com on my VPS deploy@203.0.113.10, with https');
    expect(p.architecture).toMatch(/s3\.example\.com \{\n\tencode gzip\n\treverse_proxy minio:9000\n\}/);
    expect(p.architecture).toMatch(/console\.example\.com \{\n\tencode gzip\n\treverse_proxy minio:9001\n\}/);
    const compose = YAML.parse(p.compose) as { services: Record<string, { ports?: string[] }> };
    expect(compose.services.minio!.ports).toBeUndefined();
    // The deploy's last step asks the S3 API at its health path (its root answers 403 without credentials).
    expect(p.implementation).toContain('https://s3.example.com/minio/health/live');
    expect(p.errors).toEqual([]);
  });

  test('MinIO with Traefik: one router per endpoint, each to its own port', async () => {
    const p = await planned('MinIO at s3.example.com behind traefik on my VPS deploy@203.0.113.10, with https');
    const labels = (YAML.parse(p.compose) as { services: Record<string, { labels?: Record<string, string> }> }).services.minio!.labels!;
    expect(labels['traefik.http.routers.minio.rule']).toBe('Host(`s3.example.com`)');
    expect(labels['traefik.http.services.minio.loadbalancer.server.port']).toBe('9000');
    expect(labels['traefik.http.routers.minio-console.rule']).toBe('Host(`console.example.com`)');
    expect(labels['traefik.http.services.minio-console.loadbalancer.server.port']).toBe('9001');
    expect(p.errors).toEqual([]);
  });

  test('MinIO without a domain: the API and the console on loopback only, never public plain HTTP', async () => {
    const p = await planned('MinIO on my VPS deploy@203.0.113.10');
    const compose = YAML.parse(p.compose) as { services: Record<string, { ports?: string[] }> };
    expect(compose.services.minio!.ports).toEqual(['127.0.0.1:9000:9000', '127.0.0.1:9001:9001']);
    expect(p.errors).toEqual([]);
  });
});

describe("the host's GPUs, for products whose catalogue entry can use them", () => {
  const DEFAULTS = 'Go with sensible defaults for everything else.';

  const RESERVATION = { resources: { reservations: { devices: [{ driver: 'nvidia', count: 'all', capabilities: ['gpu'] }] } } };

  test('Ollama with Open WebUI "on my GPU server": both get a device reservation real Compose accepts, Open WebUI its CUDA build; the start step checks the nvidia runtime first', async () => {
    const c = converse(['Ollama with Open WebUI on my GPU server deploy@203.0.113.10', DEFAULTS]);
    const p = plans(c.document);
    const compose = YAML.parse(p.compose) as { services: Record<string, { deploy?: unknown; image: string }> };
    expect(compose.services.ollama!.deploy).toEqual(RESERVATION);
    expect(compose.services['open-webui']!.deploy).toEqual(RESERVATION);
    expect(compose.services['open-webui']!.image).toBe(PRODUCTS['open-webui']!.services[0]!.gpuImage);
    expect(composeSpecErrors(compose)).toEqual([]);
    if (dockerComposeAvailable()) expect(dockerComposeConfig(p.compose, p.files)).toBe('');
    expect(c.document).toContain('Ollama 0.5, Open WebUI 0.4 get the server');
    expect(p.implementation).toContain('Docker has no nvidia runtime');
    const facts = verifierFactsOf(readStackModel(p.implementation) ?? readStackModel(p.architecture));
    const findings = await verifyPlans({ architecture: p.architecture, implementation: p.implementation, secrets: c.secrets.map((s) => s.name), ...facts });
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  test('a GPU asked for with a product that cannot use one is said, and no container gets a reservation', () => {
    const c = converse(['Vaultwarden on my GPU server deploy@203.0.113.10', DEFAULTS]);
    expect(c.document).toContain('You asked for a GPU, but Vaultwarden');
    expect(plans(c.document).compose).not.toContain('nvidia');
  });

  const ABLE = Object.values(PRODUCTS).filter((p) => p.gpu).map((p) => [p.id] as const);

  test('the catalogue marks the products whose images can use an NVIDIA GPU', () => {
    expect(ABLE.map(([id]) => id).sort()).toEqual(['jellyfin', 'ollama', 'open-webui']);
  });

  test.each(ABLE)('%s on a GPU server: every service of it gets the reservation (and its GPU build), a valid compose file; without the ask none does', (id) => {
    const product = PRODUCTS[id]!;
    const needs = product.needs.map((choices) => choices[0]!);
    const compose = YAML.parse(composeStack(factsWith([id, ...needs], { gpu: true })).composeYaml) as { services: Record<string, { deploy?: unknown; image: string }> };
    for (const s of product.services) {
      expect(compose.services[s.name]!.deploy).toEqual(RESERVATION);
      expect(compose.services[s.name]!.image).toBe(s.gpuImage ?? s.image);
    }
    expect(composeSpecErrors(compose)).toEqual([]);
    expect(composeStack(factsWith([id, ...needs])).composeYaml).not.toContain('nvidia');
  });
});
