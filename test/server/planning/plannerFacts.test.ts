import YAML from 'yaml';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';

/** What a person says stays in the plan: names, exclusions, domains, ports, sizes, allowlists, places, language. */
const DEFAULTS = 'Go with sensible defaults for everything else.';

describe('offline planner keeps the facts a person gives', () => {
  test('every domain, in any TLD, goes to the service it was named for', () => {
    const c = converse(['Uptime Kuma at status.acme.net and Gitea at git.acme.org, on Hetzner', DEFAULTS]);
    expect(c.ready).toBe(true);
    const p = plans(c.document);
    const caddyfile = p.files.find((f) => f.path === 'Caddyfile')!.content;
    expect(caddyfile).toMatch(/status\.acme\.net \{\n\tencode gzip\n\treverse_proxy uptime-kuma:3001/);
    expect(caddyfile).toMatch(/git\.acme\.org \{\n\tencode gzip\n\treverse_proxy gitea:3000/);
    expect(p.implementation).toMatch(/Create A records for (git\.acme\.org, status\.acme\.net|status\.acme\.net, git\.acme\.org)/);
  });

  test('an asked port: Git over SSH on 2222, and the host SSH port moved', () => {
    const gitea = plans(converse(['Gitea at code.example.net with SSH on port 2222, on my VPS', DEFAULTS]).document);
    expect((YAML.parse(gitea.compose) as { services: { gitea: { ports: string[] } } }).services.gitea.ports).toContain('2222:22');
    const host = composeStack(extractFacts(['n8n on Hetzner, move SSH to port 2222']));
    expect(host.sshPort).toBe(2222);
  });

  test("the SSH port of the person's own server is how the plan reaches it, never a service's published port", () => {
    const facts = extractFacts(['PostgreSQL and Redis with nginx in front, on my existing server deploy@172.17.0.3 port 2222, plain HTTP']);
    expect(facts.sshTarget).toEqual({ user: 'deploy', host: '172.17.0.3', port: 2222 });
    expect(facts.ports).toEqual([]);
    const compose = YAML.parse(composeStack(facts).composeYaml) as { services: Record<string, { ports?: string[] }> };
    const published = Object.values(compose.services).flatMap((service) => service.ports ?? []);
    expect(published).toContain('80:80');
    expect(published.filter((p) => p.startsWith('2222:'))).toEqual([]);
  });

  test('a port something else holds on the server is not its SSH port, and a port clients find by number alone is never moved', () => {
    for (const said of ['pi-hole on deploy@203.0.113.12, systemd-resolved holds port 53 on that box', 'pi-hole on deploy@203.0.113.12 where dnsmasq uses port 53']) {
      const facts = extractFacts([said]);
      expect(facts.sshTarget).toEqual({ user: 'deploy', host: '203.0.113.12', port: 22 });
      // What the server holds is for the inspection to find, not a port to publish Pi-hole's web page on.
      expect(facts.ports).toEqual([]);
    }
    expect(extractFacts(['pi-hole on deploy@203.0.113.12, use port 8081 for its admin page']).ports).toEqual([expect.objectContaining({ host: 8081 })]);
    for (const said of ['pi-hole on deploy@203.0.113.12 (ssh on port 2222)', 'pi-hole on deploy@203.0.113.12:2222', 'pi-hole on deploy@203.0.113.12 port 2222']) {
      expect(extractFacts([said]).sshTarget).toEqual({ user: 'deploy', host: '203.0.113.12', port: 2222 });
    }
    const held = { inspectedAt: '2026-11-28T00:00:00Z', portsInUse: [{ port: 53, protocol: 'udp' as const, holder: 'systemd-resolved' }, { port: 53, protocol: 'tcp' as const, holder: 'systemd-resolved' }], containers: [], composeProjects: [] };
    const stack = composeStack(extractFacts(['pi-hole on deploy@203.0.113.12']), { serverFacts: held });
    const ports = (YAML.parse(stack.composeYaml) as { services: { pihole: { ports: string[] } } }).services.pihole.ports;
    // DNS clients ask port 53 only: moved to 54 it would answer nobody; it stays, and the person is told to free it.
    expect(ports).toEqual(expect.arrayContaining(['53:53/tcp', '53:53/udp']));
    expect(stack.notes.filter((n) => n.startsWith('pihole needs port 53'))).toEqual([expect.stringContaining('systemd-resolved holds it on the server: free port 53 there first')]);
  });

  test('storage the machine type cannot hold becomes a block volume, never a claimed bigger or encrypted disk', () => {
    const c = converse(['MinIO with 500 GB of data on Hetzner in Falkenstein', DEFAULTS]);
    expect(c.document).toContain('fsn1');
    expect(c.document).toMatch(/Storage: 40 GB SSD root disk \(fixed by cx22\); 500 GB block volume/);
    expect(c.document).not.toMatch(/encrypted/i);
    expect(plans(c.document).architecture).toContain('- Data volume GB: 500');
    const aws = converse(['MinIO with 500 GB of data on AWS in Frankfurt', DEFAULTS]);
    expect(aws.document).toMatch(/Storage: 520 GB SSD root disk, encrypted at rest/);
    const vps = converse(['MinIO with 500 GB of data on my VPS', DEFAULTS]);
    expect(vps.document).toMatch(/it needs 520 GB free \(this plan adds no disk/);
  });

  test('an IP allowlist becomes firewall rules', () => {
    const c = converse(['Paperless-ngx on Hetzner, only allow access from our office IP 203.0.113.7', DEFAULTS]);
    expect(c.document).toContain('Allowed sources: 203.0.113.7/32 (every inbound port)');
    expect(plans(c.document).architecture).toContain('- Allowed sources: 203.0.113.7/32 (all)');
  });

  test('the language is detected and the English answer is said once', () => {
    const c = converse(['Ich brauche Vaultwarden auf vault.beispiel.de bei Hetzner in Nürnberg', 'Die Last ist gering, bitte mit den Standardwerten']);
    expect(c.replies[0]).toContain('I read your message as German; the offline planner answers in English.');
    expect(c.replies[1]).not.toContain('I read your message as German');
    expect(c.document).toContain('nbg1');
  });

  test('what the person rules out stays out, and a generic word never swaps a named product', () => {
    expect(servicesOf(plans(converse(['Monitoring for my sites with Uptime Kuma on my VPS', DEFAULTS]).document).compose)).toEqual(['uptime-kuma']);
    const maria = servicesOf(plans(converse(['Matomo analytics with MariaDB, not MySQL, on my VPS', DEFAULTS]).document).compose);
    expect(maria).toEqual(['mariadb', 'matomo']);
    const ghost = converse(['Ghost blog with MariaDB, not MySQL, on my VPS', DEFAULTS]);
    expect(ghost.replies[1]).toContain('Ghost 5 needs MySQL 8.4, which you ruled out');
    expect(servicesOf(plans(ghost.document).compose)).not.toContain('mysql');
    const logs = servicesOf(plans(converse(['Centralized logging with Loki and Promtail, not Prometheus, on my VPS', DEFAULTS]).document).compose);
    expect(logs).toEqual(expect.arrayContaining(['loki', 'promtail']));
    expect(logs).not.toContain('prometheus');
    expect(logs).not.toContain('elasticsearch');
  });

  test('no untrue claims: no "databases are not exposed" without a database, no encryption where nothing encrypts', () => {
    const c = converse(['Jellyfin on DigitalOcean', DEFAULTS]);
    expect(c.document).not.toContain('Databases are not exposed');
    expect(c.document).not.toMatch(/encrypted/i);
  });

  test('an image the person names is used as given; unknown software is named once, never swapped, then left out in words', () => {
    const pg = plans(converse(['Gitea with postgres:15.8-alpine on my VPS', DEFAULTS]).document);
    expect(pg.compose).toContain('image: postgres:15.8-alpine');
    const asked = converse(['Plex for my films on my VPS']);
    expect(asked.ready).toBe(false);
    expect(asked.replies.at(-1)).toContain("I don't know Plex");
    expect(asked.replies.at(-1)).toContain('Jellyfin');
    expect(asked.document).toMatch(/Plex: To be confirmed/);
    // Asked once; a plain answer goes on without it, and the plan says so: nothing stands in for it.
    const plex = converse(['Plex for my films on my VPS', DEFAULTS]);
    expect(plex.ready).toBe(true);
    expect(plex.document).toMatch(/left out as you said: Plex/);
    expect(plans(plex.document).compose ?? '').not.toContain('jellyfin');
    const swapped = converse(['Plex for my films on my VPS', 'use Jellyfin instead of Plex', DEFAULTS]);
    expect(swapped.ready).toBe(true);
    expect(servicesOf(plans(swapped.document).compose)).toEqual(['jellyfin']);
    const own = converse(['Plex for my films on my VPS', 'image plexinc/pms-docker:1.41.3 port 32400, data in /config', DEFAULTS]);
    expect(own.ready).toBe(true);
    expect(plans(own.document).compose).toContain('image: plexinc/pms-docker:1.41.3');
  });

  test('a host-only request gets a host-only plan that keeps live ports open', () => {
    const c = converse(['Harden my existing server with ufw and fail2ban, no docker please', DEFAULTS]);
    expect(c.ready).toBe(true);
    const p = plans(c.document);
    expect(p.compose).toBe('');
    expect(p.implementation).not.toMatch(/apt-get install[^\n]*docker/);
    expect(p.implementation).toContain('ss -Htln');
    expect(p.implementation).toContain('fail2ban-client status sshd');
  });

  test('compose text survives YAML 1.1 readers and Compose interpolation', () => {
    const p = plans(converse(['A Django app with Redis and an ELK stack on my VPS', DEFAULTS]).document);
    expect(p.compose).toContain('- "yes"');
    expect(p.compose).toContain("'^(200|401)$$'");
    expect(p.compose).not.toMatch(/(?<!\$)\$'/);
  });
});

describe('the catalogue sizes the machine by CPU as well as memory', () => {
  test('a product with a minimum vCPU count moves the machine up to it, and says why', () => {
    const jellyfin = composeStack(Object.assign(extractFacts(['Jellyfin on DigitalOcean in Frankfurt']), { acceptsDefaults: true }));
    expect(jellyfin.machine.vcpus).toBeGreaterThanOrEqual(2);
    expect(jellyfin.machine.instanceType).toBe('s-2vcpu-4gb');
    expect(jellyfin.notes).toContain('Sized for at least 2 vCPUs: Jellyfin 10.10 needs them.');
    const ollama = composeStack(Object.assign(extractFacts(['Ollama on Hetzner']), { acceptsDefaults: true }));
    expect(ollama.machine.vcpus).toBeGreaterThanOrEqual(4);
    const kuma = composeStack(Object.assign(extractFacts(['Uptime Kuma on DigitalOcean']), { acceptsDefaults: true }));
    expect(kuma.machine.instanceType).toBe('s-1vcpu-2gb');
  });
});

describe('words that are kinds, descriptions and shared names are read from catalogue data', () => {
  const facts = (text: string) => {
    const f = extractFacts([text]);
    return { components: [...f.components].sort(), proxy: f.proxy, domains: f.domains };
  };

  test("kind words ask for the person's own app or site only beside products such a workload uses", () => {
    expect(facts('node app with meilisearch for search, server deploy@203.0.113.10, shop.kittlewares.com')).toEqual({ components: ['app', 'meilisearch'], proxy: undefined, domains: [{ host: 'shop.kittlewares.com', component: 'app' }] });
    expect(facts('Typesense plus our Ruby app on digitalocean').components).toEqual(['app', 'typesense']);
    expect(facts('my python api with postgres and redis').components).toEqual(['app', 'postgres', 'redis']);
    // A product people visit named beside them: the words describe it.
    expect(facts('a WordPress website on hetzner').components).toEqual(['mariadb', 'wordpress']);
    expect(facts('a ghost blog as our company website').components).toEqual(['ghost', 'mysql']);
  });

  test('a name a proxy shares with another product is the proxy when proxying is said or there is something to front', () => {
    expect(facts('nginx on my vps')).toMatchObject({ components: ['web'], proxy: undefined });
    expect(facts('nginx in front of my node app')).toMatchObject({ components: ['app'], proxy: 'nginxProxy' });
    expect(facts('nginx with ghost')).toMatchObject({ components: ['ghost', 'mysql'], proxy: 'nginxProxy' });
    expect(facts('nginx as a reverse proxy for grafana').proxy).toBe('nginxProxy');
    // A name inside a longer one of another product is that product's.
    expect(facts('nginx proxy manager on my vps')).toMatchObject({ components: ['nginx-proxy-manager'], proxy: undefined });
  });

  test('a description of a product asks for it, and is never said back as unknown software', () => {
    const c = converse(['i want my own chatgpt at home, i have a pc with an rtx 3090 running ubuntu at ubuntu@192.0.2.50', DEFAULTS]);
    expect(c.replies.join('\n')).not.toMatch(/i don't know chatgpt/i);
    const f = extractFacts(['i want my own chatgpt at home, i have a pc with an rtx 3090']);
    expect([...f.components].sort()).toEqual(['ollama', 'open-webui']);
    expect(f.gpu).toBe(true);
  });
});
