import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { emptyFacts, type Facts } from '../../../src/server/agents/offline/facts';

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
