import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { converse, plans } from '../helpers/plannerConversation';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';

/**
 * Corrections said in words after a first request, each checked in the plan the architect renders from
 * the requirements: remove, rule out, replace, add, a domain, a port, keep private, make public again.
 */

describe('corrections in words', () => {
  it.each(CORRECTIONS)('%s: "%s"', (_name, correction, check) => {
    const c = converse([BASE_REQUEST, correction]);
    expect(c.ready).toBe(true);
    check(publishedBy(plans(c.document).architecture));
  });

  const WEB = Object.values(PRODUCTS).filter((c) => c.category !== 'proxy' && !['app', 'web'].includes(c.id) && c.services.some((s) => s.webLabel !== undefined) && /^[A-Za-z][\w .-]*$/.test(c.label));
  const SAYINGS = [(x: string) => `keep ${x} private`, (x: string) => `${x} must not be public`, (x: string) => `don't expose ${x}`, (x: string) => `${x} should stay internal`];

  it('"keep X private", however it is said, keeps X in the stack and off the proxy and the public ports', () => {
    fc.assert(
      fc.property(fc.constantFrom(...WEB), fc.constantFrom(...SAYINGS), (product, say) => {
        const name = product.label.replace(/\s+v?[\d.]+$/, '');
        const c = converse([`${name} behind Caddy at app.example.org on my VPS, light load`, say(name)]);
        const p = publishedBy(plans(c.document).architecture);
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
