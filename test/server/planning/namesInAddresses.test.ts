import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';

/**
 * A catalogued name inside a host name is where the stack is served, not a product asked for: "Gitea at
 * n8n.example.com" runs no n8n, "Outline wiki at wiki.example.com" no Wiki.js. And the words that open a
 * request ("Deploy", "Launch") or join a list ("+") are never part of an unknown name said back.
 */

/** Catalogued names written as one plain word (a label a host name can have), with their product. */
const PLAIN_NAMES = Object.values(PRODUCTS)
  .filter((p) => !p.proxy && !p.kindWords)
  .flatMap((p) => p.aliases.filter((a) => /^[a-z0-9]+$/.test(a)).map((label) => ({ label, id: p.id })));
/** Requests for one catalogued product, served at a host name. */
const ASKED = ['Gitea', 'Nextcloud', 'Uptime Kuma', 'Vaultwarden', 'Ghost'];
const REQUESTS: Array<(asked: string, host: string) => string> = [
  (asked, host) => `Deploy ${asked} at ${host} on my VPS 203.0.113.10`,
  (asked, host) => `${asked} on my own server 203.0.113.10, domain ${host}`,
  (asked, host) => `I need ${asked} on Hetzner, reachable as https://${host}`,
];

/** The services a product brings, by id. */
const servicesOfProduct = (id: string): string[] => PRODUCTS[id]!.services.map((s) => s.name);

describe('names inside host names', () => {
  it('has plain names to try', () => {
    expect(PLAIN_NAMES.length).toBeGreaterThan(20);
  });

  it('never brings the product a host name label names', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PLAIN_NAMES), fc.constantFrom(...ASKED), fc.constantFrom(...REQUESTS), fc.constantFrom('example.com', 'corp.example.net'), (name, asked, request, zone) => {
        const said = request(asked, `${name.label}.${zone}`);
        const c = converse([said, 'Go with sensible defaults for everything else.']);
        const askedIds = Object.values(PRODUCTS).filter((p) => p.aliases.some((a) => new RegExp(`^(?:${a})$`, 'i').test(asked))).map((p) => p.id);
        fc.pre(!askedIds.includes(name.id) && !askedIds.some((id) => PRODUCTS[id]!.requires.includes(name.id) || PRODUCTS[id]!.needs.flat().includes(name.id)));
        const services = c.ready ? servicesOf(plans(c.document).compose) : [];
        const brought = servicesOfProduct(name.id).filter((s) => services.includes(s));
        expect({ said, brought }).toEqual({ said, brought: [] });
      }),
      { numRuns: 80, seed: 28 },
    );
  });

  it('keeps a name written before the host name', () => {
    const c = converse(['Deploy n8n at n8n.example.com on my VPS 203.0.113.10', 'Go with sensible defaults for everything else.']);
    expect(servicesOf(plans(c.document).compose)).toContain('n8n');
  });
});

describe('unknown names said back', () => {
  const OPENERS = ['Deploy', 'Launch', 'Please install', 'Set up', 'Spin up', 'Run', 'Host'];
  const UNKNOWN = ['Outline', 'Immich', 'BookStack', 'Authentik', 'Zabbix'];
  const KINDS = ['wiki', 'server', 'for our team', 'on my VPS'];

  it('holds the name alone: no opening verb, no joiner', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OPENERS), fc.constantFrom(...UNKNOWN), fc.constantFrom(...KINDS), (opener, name, kind) => {
        const said = `${opener} ${name} ${kind}`;
        const reply = converse([said]).replies[0]!;
        const named = [...reply.matchAll(/I don't know ([^:]+):/g)].map((m) => m[1]);
        expect({ said, named }).toEqual({ said, named: [name] });
      }),
      { numRuns: 60, seed: 28 },
    );
  });

  it('names no joiner standing alone as software', () => {
    const reply = converse(['Set up opensearch + opensearch dashboards on my vps']).replies[0]!;
    expect(reply).not.toContain("I don't know +");
    expect(reply).toContain("I don't know opensearch");
  });
});
