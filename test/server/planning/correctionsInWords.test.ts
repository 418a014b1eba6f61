import fc from 'fast-check';
import YAML from 'yaml';
import { COMPONENTS } from '../../../src/server/agents/offline/components';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';

/**
 * Corrections said in words after a first request, each checked in the plan the architect renders from
 * the requirements: remove, rule out, replace, add, a domain, a port, keep private, make public again.
 */

interface Published {
  services: string[];
  /** Host ports published on every address, by service. */
  open: Record<string, string[]>;
  /** Upstreams the proxy forwards to (`service:port`). */
  proxied: string[];
}

function published(document: string): Published {
  const p = plans(document);
  const compose = YAML.parse(p.compose) as { services: Record<string, { ports?: string[] }> };
  const open = Object.fromEntries(Object.entries(compose.services).map(([name, s]) => [name, (s.ports ?? []).filter((x) => !x.startsWith('127.0.0.1:'))]));
  const proxied = p.files.flatMap((f) => [...f.content.matchAll(/(?:reverse_proxy|proxy_pass\s+https?:\/\/)\s*([\w-]+:\d+)/g)].map((m) => m[1]!));
  return { services: servicesOf(p.compose), open, proxied };
}

const base = 'Nextcloud with MariaDB, Redis and Adminer behind Caddy at cloud.example.org on my VPS, light load';

describe('corrections in words', () => {
  const cases: Array<[string, string, (p: Published, document: string) => void]> = [
    ['remove', 'Please remove Redis', (p) => expect(p.services).not.toContain('redis')],
    ['rule out', 'I do NOT want Adminer', (p) => expect(p.services).not.toContain('adminer')],
    ['replace', 'PostgreSQL instead of MariaDB', (p) => {
      expect(p.services).toEqual(expect.arrayContaining(['postgres']));
      expect(p.services).not.toContain('mariadb');
    }],
    ['add', 'also add Uptime Kuma', (p) => expect(p.services.some((s) => s.startsWith('uptime'))).toBe(true)],
    ['domain', 'use files.example.net as the domain instead', (p, d) => {
      expect(d).toContain('files.example.net');
      expect(d).not.toContain('cloud.example.org');
      expect(p.proxied.length).toBeGreaterThan(0);
    }],
    ['port', 'publish Adminer on port 8090', (p) => expect(p.open.adminer).toEqual(['8090:8080'])],
    ['private', 'keep Adminer private', (p) => {
      expect(p.services).toContain('adminer');
      expect(p.proxied.filter((u) => u.startsWith('adminer:'))).toEqual([]);
      expect(p.open.adminer).toEqual([]);
    }],
    ['public again', 'keep Adminer private. Actually, make Adminer public', (p) => expect(p.proxied.some((u) => u.startsWith('adminer:'))).toBe(true)],
  ];
  it.each(cases)('%s: "%s"', (_name, correction, check) => {
    const c = converse([base, correction]);
    expect(c.ready).toBe(true);
    check(published(c.document), c.document);
  });

  const WEB = Object.values(COMPONENTS).filter((c) => c.category !== 'proxy' && !['app', 'web'].includes(c.id) && c.services.some((s) => s.webLabel !== undefined) && /^[A-Za-z][\w .-]*$/.test(c.label));
  const SAYINGS = [(x: string) => `keep ${x} private`, (x: string) => `${x} must not be public`, (x: string) => `don't expose ${x}`, (x: string) => `${x} should stay internal`];

  it('"keep X private", however it is said, keeps X in the stack and off the proxy and the public ports', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WEB), fc.constantFrom(...SAYINGS), (product, say) => {
        const name = product.label.replace(/\s+v?[\d.]+$/, '');
        const c = converse([`${name} behind Caddy at app.example.org on my VPS, light load`, say(name)]);
        const p = published(c.document);
        const own = product.services.map((s) => s.name);
        expect({ name, said: say(name), kept: own.some((s) => p.services.includes(s)) }).toEqual({ name, said: say(name), kept: true });
        for (const s of own) {
          expect({ s, proxied: p.proxied.filter((u) => u.startsWith(`${s}:`)) }).toEqual({ s, proxied: [] });
          expect({ s, open: p.open[s] ?? [] }).toEqual({ s, open: [] });
        }
      }),
      { numRuns: 40, seed: 25 },
    );
  });
});
