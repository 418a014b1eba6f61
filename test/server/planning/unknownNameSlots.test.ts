import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { unknownNames } from '../../../src/server/agents/offline/products';
import { extractFacts } from '../../../src/server/agents/offline/facts';

/**
 * Names of software the catalogue does not hold, in the places operators put them when no deploy verb
 * comes first: a request opening on a list ("opensearch + opensearch dashboards on my vps"), on a name of
 * two words before a kind word ("hashicorp vault for secrets"), on a name with its version, or a
 * compound joined to a catalogued name ("kafka + kafka-ui").
 */
describe('unknown names where tickets put them', () => {
  it.each([
    ['opensearch + opensearch dashboards on my vps for logs', 'opensearch'],
    ['hashicorp vault for secrets on aws eu-west-1', 'hashicorp vault'],
    ['harbor registry on my server since docker hub rate-limits us', 'harbor'],
    ['k3s cluster with argo cd on hetzner', 'k3s'],
    ['kafka + kafka-ui + our java consumer on gcp', 'kafka-ui'],
  ])('%s names %s', (text, name) => {
    expect(unknownNames(text)).toContain(name);
  });

  // A catalogued id the planner knows on its own ("adguard on my vps") is known in a list at the opening too.
  const ids = Object.values(PRODUCTS).map((p) => p.id).filter((id) => unknownNames(`${id} on my vps`).length === 0);
  it('a list of catalogued products opening a request names nothing unknown', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom(...ids), fc.constantFrom('+', 'and', 'plus', '&'), (a, b, joiner) => {
        expect(unknownNames(`${a} ${joiner} ${b} on my vps`)).toEqual([]);
      }),
    );
  });

  it.each(['Small mastodon instance for a hobby community', 'full observability: prometheus, grafana and loki', 'Laravel app + MySQL 8 + Redis queue', 'static site served by nginx at www.fernhill.io'])(
    'ordinary openings name nothing: %s',
    (text) => expect(unknownNames(text)).toEqual([]),
  );
});

describe('what the server already runs is not asked for', () => {
  it.each([
    ['n8n on my server deploy@203.0.113.10. heads up: nginx already runs on that box on 80 and 443 for other sites', ['n8n'], ['nginxProxy', 'web']],
    ['vaultwarden at vault.pemberton.co on deploy@203.0.113.10, but traefik from another project already holds 80 and 443', ['vaultwarden'], ['traefik']],
    ['gitea on deploy@203.0.113.10 at git.example.org. Port 8080 is used by a legacy java thing, leave it alone', ['gitea'], ['app']],
  ])('%s', (text, has, hasNot) => {
    const facts = extractFacts([text]);
    const planned = new Set([...facts.components, ...(facts.proxy ? [facts.proxy] : [])]);
    for (const id of has) expect(planned).toContain(id);
    for (const id of hasNot) expect(planned).not.toContain(id);
    expect(facts.ports.map((p) => p.host)).not.toContain(8080);
  });
});
