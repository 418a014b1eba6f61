import fc from 'fast-check';
import YAML from 'yaml';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { renderArchitecturePlan, renderImplementationPlan } from '../../../src/server/agents/offline/documents';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import { caddySites, nginxServers, parseCaddyfile, parseNginx } from '../../../src/server/agents/verifier/blockConfig';
import { verifyPlans } from '../../../src/server/agents/verifier/verifyPlan';
import type { ServerFacts } from '../../../src/shared/stackModel';

/**
 * A stack planned for a server that already runs a reverse proxy on 80/443, said in words or seen at
 * inspection: no proxy of the stack's own (one on 8080/8443 could get no certificate), the web services
 * on loopback, and the site for the proxy that is there, written by a step only when asked.
 */

/** How people name each kind, and the kind the planner must read. */
const KINDS: Array<{ kind: string; words: string[] }> = [
  { kind: 'nginx', words: ['nginx', 'Nginx', 'NGINX'] },
  { kind: 'caddy', words: ['caddy', 'Caddy'] },
  { kind: 'traefik', words: ['traefik', 'Traefik'] },
  { kind: 'apache', words: ['Apache', 'apache2', 'httpd'] },
  { kind: 'haproxy', words: ['HAProxy', 'haproxy'] },
];
const MANAGEABLE = new Set(['nginx', 'caddy', 'apache']);

/** How the person says their server runs it: `{p}` is the proxy's word. */
const SAYINGS = [
  '{p} already runs on 80/443',
  '{p} already runs on that box on 80 and 443 for other sites',
  '{p} handles TLS on that box',
  'it sits behind our {p}',
  'we already have {p} on 80 and 443',
  'the existing {p} is in front of everything there',
  'our {p} terminates TLS there',
];
/** Asking us to add the site to it. */
const MANAGE = ['add the site to our {p} for us', 'please configure our {p} for it too'];

const APPS: Array<{ says: string; service: string }> = [
  { says: 'n8n', service: 'n8n' },
  { says: 'uptime kuma', service: 'uptime-kuma' },
  { says: 'gitea', service: 'gitea' },
  { says: 'vaultwarden', service: 'vaultwarden' },
  { says: 'grafana and prometheus', service: 'grafana' },
];

const request = fc.record({
  kind: fc.constantFrom(...KINDS),
  wordAt: fc.nat(),
  saying: fc.constantFrom(...SAYINGS),
  app: fc.constantFrom(...APPS),
  domain: fc.option(fc.constantFrom('apps.example.org', 'flows.quillfeather.com'), { nil: undefined }),
  manage: fc.option(fc.constantFrom(...MANAGE), { nil: undefined }),
});
type Request = typeof request extends fc.Arbitrary<infer T> ? T : never;

const sentence = (r: Request): { text: string; word: string } => {
  const word = r.kind.words[r.wordAt % r.kind.words.length]!;
  const at = r.domain ? ` at ${r.domain}` : '';
  const text = `${r.app.says}${at} on my server deploy@203.0.113.7, ${r.saying.replaceAll('{p}', word)}${r.manage ? `. ${r.manage.replaceAll('{p}', word)}` : ''}`;
  return { text, word };
};

const hostPorts = (composeYaml: string): string[] =>
  Object.values((YAML.parse(composeYaml) as { services: Record<string, { ports?: string[] }> }).services).flatMap((s) => s.ports ?? []);

describe("a stack beside the server's own reverse proxy, said in words", () => {
  it('adds no proxy, keeps 80/443 and 8080/8443 free, and gives the site for the proxy that is there', () => {
    fc.assert(
      fc.property(request, (r) => {
        const { text } = sentence(r);
        const facts = extractFacts([text]);
        expect(facts.serverProxy?.kind).toBe(r.kind.kind);
        const stack = composeStack(facts);
        expect(stack.proxy).toBeUndefined();
        expect(stack.components.filter((c) => c.category === 'proxy')).toEqual([]);
        // Nothing of the stack claims the web ports on the server's public addresses, nor the 8080/8443 a displaced proxy took.
        for (const p of hostPorts(stack.composeYaml)) {
          const parts = p.split(':');
          if (parts.length === 3 && parts[0] === '127.0.0.1') continue;
          expect(['80', '443', '8443']).not.toContain(parts[0]);
        }
        const architecture = renderArchitecturePlan(stack);
        const siteStep = planSteps(stack).find((s) => s.title.startsWith('Add the site'));
        if (!r.domain) {
          expect(stack.serverSite).toBeUndefined();
          expect(siteStep).toBeUndefined();
          return;
        }
        const site = stack.serverSite!;
        expect(site.proxy.kind.id).toBe(r.kind.kind);
        // Every route reaches its service on a loopback port the compose file publishes.
        for (const route of site.routes) {
          const port = route.upstream.split(':')[1]!;
          expect(hostPorts(stack.composeYaml)).toContainEqual(expect.stringMatching(new RegExp(`^127\\.0\\.0\\.1:${port}:`)));
          expect(site.text).toContain(route.host);
        }
        // The site reads as its proxy's configuration (the same parsers the verifier uses).
        if (r.kind.kind === 'nginx') expect(nginxServers(parseNginx(site.text)).map((s) => s.serverNames[0])).toEqual(site.routes.map((x) => x.host));
        if (r.kind.kind === 'caddy') expect(caddySites(parseCaddyfile(site.text)).map((s) => s.upstreams[0])).toEqual(site.routes.map((x) => x.upstream));
        if (r.kind.kind === 'traefik') {
          const yaml = YAML.parse(site.text) as { http: { routers: Record<string, { rule: string; service: string }>; services: Record<string, unknown> } };
          for (const router of Object.values(yaml.http.routers)) expect(yaml.http.services).toHaveProperty(router.service);
        }
        expect(architecture).toContain(`### Site for ${site.proxy.kind.label}`);
        // Written by a step only when asked, and only where the kind's layout is standard; else given to the person.
        expect(Boolean(siteStep)).toBe(Boolean(r.manage) && MANAGEABLE.has(r.kind.kind));
        if (siteStep) {
          const script = siteStep.commands.join('\n');
          expect(script).toContain(site.proxy.kind.test!);
          expect(script.indexOf(site.proxy.kind.test!)).toBeLessThan(script.indexOf(site.proxy.kind.reload![0]!));
        }
        // The deploy verifies what it can: the loopback ports, not the domain it did not put on the proxy.
        const verify = planSteps(stack).find((s) => s.title === 'Verify the deployment')!.commands.join('\n');
        expect(verify).not.toContain(`://${site.routes[0]!.host}`);
      }),
      { numRuns: 150 },
    );
  });

  // The verifier runs shellcheck and the shell parser over every step: fewer runs, each a whole plan.
  it('the plans parse and pass the verifier', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const stack = composeStack(extractFacts([sentence(r).text]));
        expect(() => YAML.parse(stack.composeYaml) as unknown).not.toThrow();
        const errors = (await verifyPlans({ architecture: renderArchitecturePlan(stack), implementation: renderImplementationPlan(stack) })).filter((f) => f.severity === 'error');
        expect(errors).toEqual([]);
      }),
      { numRuns: 12 },
    );
  }, 240_000);

  it('a proxy to deploy is still deployed: "with nginx as reverse proxy" is no server proxy', () => {
    for (const text of ['n8n at flows.example.org with nginx as reverse proxy on hetzner', 'gitea at git.example.org, I want traefik in front, on hetzner', 'n8n at flows.example.org with caddy on hetzner']) {
      const facts = extractFacts([text]);
      expect(facts.serverProxy).toBeUndefined();
      expect(composeStack(facts).proxy).toBeDefined();
    }
  });

  it("leaving it to the person: \"don't touch our nginx\" gives the site, no step", () => {
    const stack = composeStack(extractFacts(["n8n at flows.example.org on my server deploy@203.0.113.7, behind our nginx. don't touch its config, I'll add the site myself"]));
    expect(stack.serverSite?.proxy.manage).toBe(false);
    expect(planSteps(stack).some((s) => s.title.startsWith('Add the site'))).toBe(false);
  });

  it('taken back later ("there is no nginx on that box after all"), the stack gets its own proxy again', () => {
    const first = 'n8n at flows.example.org on my server deploy@203.0.113.7, nginx already runs on 80/443';
    expect(composeStack(extractFacts([first])).serverSite).toBeDefined();
    for (const later of ["sorry, there's no nginx on that box after all", 'the proxy is gone now', 'nginx no longer runs there']) {
      const facts = extractFacts([first, later]);
      expect(facts.serverProxy).toBeUndefined();
      expect(composeStack(facts).proxy).toBe('caddy');
    }
  });

  it('the plan read back from its documents keeps the server proxy', async () => {
    const { readStackDefinition } = await import('../../../src/server/agents/offline/documents');
    const stack = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7, behind our Apache; add the site to it for us']));
    expect(readStackDefinition(renderImplementationPlan(stack))?.facts.serverProxy).toEqual({ kind: 'apache', manage: true });
  });
});

describe("the server's proxy seen at inspection", () => {
  const inspected = (holder: string, containers: ServerFacts['containers'] = []): ServerFacts => ({
    inspectedAt: '2026-11-28T00:00:00.000Z',
    portsInUse: [22, 80, 443].map((port) => ({ port, protocol: 'tcp' as const, holder: port === 22 ? 'sshd' : holder })),
    containers,
    composeProjects: [],
  });

  it.each([
    ['nginx', 'nginx'],
    ['apache2', 'apache'],
    ['httpd', 'apache'],
    ['haproxy', 'haproxy'],
    ['caddy', 'caddy'],
  ])('a host process %s is the %s kind, reached on loopback', (holder, kind) => {
    const stack = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7']), { serverFacts: inspected(holder) });
    expect(stack.proxy).toBeUndefined();
    expect(stack.serverSite?.proxy.kind.id).toBe(kind);
    expect(stack.serverSite?.routes[0]?.upstream).toBe('127.0.0.1:5678');
  });

  it('a proxy in a container reaches the services over the stack network, and says how it joins it', () => {
    const facts = inspected('container edge-traefik (compose project edge)', [{ name: 'edge-traefik', image: 'traefik:v3.1', project: 'edge' }]);
    const stack = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7. add the site to our traefik']), { serverFacts: facts });
    expect(stack.serverSite?.proxy.kind.id).toBe('traefik');
    expect(stack.serverSite?.routes[0]?.upstream).toBe('n8n:5678');
    expect(stack.notes.join(' ')).toContain('docker network connect stack_edge edge-traefik');
    expect(planSteps(stack).some((s) => s.title.startsWith('Add the site'))).toBe(false);
  });

  it('what the inspection saw wins over what was said; 80 free means no proxy is there', () => {
    const seen = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7, nginx already runs on 80/443']), { serverFacts: inspected('apache2') });
    expect(seen.serverSite?.proxy.kind.id).toBe('apache');
    const free: ServerFacts = { inspectedAt: '2026-11-28T00:00:00.000Z', portsInUse: [{ port: 22, protocol: 'tcp', holder: 'sshd' }], containers: [], composeProjects: [] };
    const gone = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7, nginx already runs on 80/443']), { serverFacts: free });
    expect(gone.serverSite).toBeUndefined();
    expect(gone.proxy).toBe('caddy');
  });
});
