import YAML from 'yaml';
import { verifyArtifacts, type PlanArtifacts } from '../../../src/server/agents/verifier/verifyPlan';
import type { TargetFacts } from '../../../src/server/agents/verifier/types';

/** A proxy asked for automatic HTTPS whose Let's Encrypt challenge cannot reach it is an error naming the domain and why. */

const caddy = (ports: string[], caddyfile: string, target?: TargetFacts): PlanArtifacts => ({
  composeYaml: YAML.stringify({
    services: {
      caddy: { image: 'caddy:2.8.4-alpine', ports, volumes: ['./Caddyfile:/etc/caddy/Caddyfile:ro', 'caddy_data:/data'], networks: ['edge'], healthcheck: { test: ['CMD', 'true'] } },
      whoami: { image: 'traefik/whoami:v1.10', networks: ['edge'], healthcheck: { test: ['CMD', 'true'] } },
    },
    volumes: { caddy_data: {} },
    networks: { edge: {} },
  }),
  files: [{ path: 'Caddyfile', content: caddyfile }],
  steps: [],
  secrets: [],
  documents: [],
  ...(target ? { target } : {}),
});

const traefik = (ports: string[], challenge: string): PlanArtifacts => ({
  composeYaml: YAML.stringify({
    services: {
      traefik: {
        image: 'traefik:v3.1',
        command: ['--providers.docker=true', '--entrypoints.websecure.address=:443', `--certificatesresolvers.le.acme.${challenge}=true`, '--certificatesresolvers.le.acme.email=${ACME_EMAIL}'],
        ports,
        volumes: ['/var/run/docker.sock:/var/run/docker.sock:ro'],
        networks: ['edge'],
        healthcheck: { test: ['CMD', 'true'] },
      },
      whoami: {
        image: 'traefik/whoami:v1.10',
        networks: ['edge'],
        healthcheck: { test: ['CMD', 'true'] },
        labels: { 'traefik.enable': 'true', 'traefik.http.routers.who.rule': 'Host(`who.example.org`)', 'traefik.http.routers.who.entrypoints': 'websecure', 'traefik.http.routers.who.tls.certresolver': 'le' },
      },
    },
    networks: { edge: {} },
  }),
  files: [],
  steps: [],
  secrets: ['ACME_EMAIL'],
  documents: [],
});

const acme = async (a: PlanArtifacts) => (await verifyArtifacts(a)).filter((f) => f.code === 'acme-unreachable');
const SITE = 'who.example.org {\n\treverse_proxy whoami:80\n}\n';

describe('acme-unreachable', () => {
  it('Caddy moved to 8080/8443 cannot get the certificate: the domain and both ports are named', async () => {
    const [f, ...rest] = await acme(caddy(['8080:80', '8443:443'], SITE));
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'error', where: 'docker-compose.yml services.caddy.ports' });
    expect(f!.message).toContain('who.example.org');
    expect(f!.message).toContain('8080:80');
    expect(f!.message).toContain('8443:443');
  });

  it('Caddy on 80/443, or either one, answers a challenge', async () => {
    expect(await acme(caddy(['80:80', '443:443'], SITE))).toEqual([]);
    expect(await acme(caddy(['8080:80', '443:443'], SITE))).toEqual([]);
    expect(await acme(caddy(['80:80'], SITE))).toEqual([]);
  });

  it('Caddy bound to loopback is not reached by the challenge', async () => {
    expect(await acme(caddy(['127.0.0.1:80:80', '127.0.0.1:443:443'], SITE))).toHaveLength(1);
  });

  it('the server holding 80 and 443 (its inspection) blocks the challenge even as published', async () => {
    const [f] = await acme(caddy(['80:80', '443:443'], SITE, { portsInUse: [80, 443].map((port) => ({ port, protocol: 'tcp' as const, holder: 'nginx' })) }));
    expect(f!.message).toContain("the server's port 80 is held by nginx");
  });

  it('sites without automatic HTTPS ask for no certificate', async () => {
    for (const site of ['http://who.example.org {\n\treverse_proxy whoami:80\n}\n', ':80 {\n\treverse_proxy whoami:80\n}\n', 'who.example.org {\n\ttls internal\n\treverse_proxy whoami:80\n}\n', '{\n\tauto_https off\n}\nwho.example.org {\n\treverse_proxy whoami:80\n}\n']) {
      expect(await acme(caddy(['8080:80'], site))).toEqual([]);
    }
  });

  it("Traefik's TLS challenge needs 443, its HTTP challenge 80, its DNS challenge neither", async () => {
    const [tls] = await acme(traefik(['80:80', '8443:443'], 'tlschallenge'));
    expect(tls!.message).toContain('who.example.org');
    expect(tls!.message).toContain('port 443');
    expect(await acme(traefik(['80:80', '443:443'], 'tlschallenge'))).toEqual([]);
    expect(await acme(traefik(['8080:80', '443:443'], 'httpchallenge'))).toHaveLength(1);
    expect(await acme(traefik(['8080:80', '8443:443'], 'dnschallenge'))).toEqual([]);
  });
});
