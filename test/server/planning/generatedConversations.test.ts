import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { alternativesFor } from '../../../src/server/agents/offline/products';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';

/**
 * Conversations nobody wrote: a first message built from catalogue names, ordinary words, maybe software
 * the catalogue does not hold and a place, then plain answers. The offline requirements agent must reach
 * a ready document within a few answers, never take an ordinary word for a product, name unknown software
 * back and never put a catalogued stand-in in its place.
 */

const NAMEABLE = Object.values(PRODUCTS).filter((c) => !['proxy'].includes(c.category) && !['app', 'web'].includes(c.id) && /^[A-Za-z][\w .-]*$/.test(c.label));
const UNKNOWN = ['Plex', 'Immich', 'Zammad', 'Sonarr', 'Kavita', 'wg-easy', 'cal.com'];
/** Names of software in the shapes people type them: dashes, dots, digits, scoped packages, image paths. */
const part = fc.stringMatching(/^[a-z]{3,7}$/);
const SHAPED = fc.oneof(
  fc.tuple(part, part).map(([a, b]) => `${a}-${b}`),
  fc.tuple(part, fc.constantFrom('com', 'io', 'app', 'dev')).map(([a, tld]) => `${a}.${tld}`),
  fc.tuple(part, fc.integer({ min: 2, max: 99 })).map(([a, n]) => `${a}${n}`),
  fc.tuple(part, part).map(([a, b]) => `@${a}/${b}`),
  fc.tuple(part, part).map(([a, b]) => `ghcr.io/${a}/${b}-api`),
);
const ORDINARY = ['self-hosted', 'image', 'open-source', 'automation', 'private', 'simple', 'production', 'platform', 'high-availability', 'low-cost', 'real-time'];
const PLACES = ['on my VPS', 'on my droplet', 'on Hetzner in Falkenstein', 'on AWS in Frankfurt', 'on my server deploy@203.0.113.7'];
const PLAIN = ['continue', 'that is all', 'Go with sensible defaults for everything else.', 'sounds good', 'Frankfurt', 'about 20 users'];

const conversation = fc.record({
  products: fc.uniqueArray(fc.constantFrom(...NAMEABLE.map((c) => c.label)), { minLength: 0, maxLength: 3 }),
  unknown: fc.option(fc.oneof(fc.constantFrom(...UNKNOWN), SHAPED), { nil: undefined }),
  ordinary: fc.subarray(ORDINARY, { maxLength: 2 }),
  place: fc.constantFrom(...PLACES),
  answers: fc.array(fc.constantFrom(...PLAIN), { minLength: 3, maxLength: 3 }),
});

const firstMessage = (c: { products: string[]; unknown: string | undefined; ordinary: string[]; place: string }): string => {
  const things = [...c.products, ...(c.unknown ? [c.unknown] : [])];
  return `I want a ${c.ordinary.join(' ')} setup with ${things.length ? things.join(' and ') : 'a small website'} ${c.place}`.replace(/\s+/g, ' ');
};

/** How many answers after the first message the conversation needed to be ready (undefined: not within them). */
function answersToReady(messages: string[]): { answers: number | undefined; last: ReturnType<typeof converse> } {
  let last = converse(messages.slice(0, 1));
  if (last.ready) return { answers: 0, last };
  for (let n = 1; n < messages.length; n++) {
    last = converse(messages.slice(0, n + 1));
    if (last.ready) return { answers: n, last };
  }
  return { answers: undefined, last };
}

describe('generated conversations with the offline requirements agent', () => {
  it('are ready within three plain answers, name unknown software back, take no ordinary word for a product and put no stand-in in its place', () => {
    const counts: number[] = [];
    fc.assert(
      fc.property(conversation, (c) => {
        const messages = [firstMessage(c), ...c.answers];
        const { answers, last } = answersToReady(messages);
        expect({ messages, answers }).toEqual({ messages, answers: expect.any(Number) });
        counts.push(answers!);
        const said = last.replies.join('\n');
        for (const word of c.ordinary) expect(said).not.toContain(`I don't know ${word}`);
        if (c.unknown) {
          expect(said).toContain(`I don't know ${c.unknown}`);
          expect(last.document).toContain(c.unknown);
          const services = servicesOf(plans(last.document).compose);
          const asked = new Set(c.products.map((l) => NAMEABLE.find((p) => p.label === l)!.id));
          for (const alt of alternativesFor(c.unknown)) if (!asked.has(alt.id)) expect(services).not.toContain(alt.id);
          // No placeholder page stands in for it either.
          if (!asked.has('web')) expect({ unknown: c.unknown, services }).toEqual({ unknown: c.unknown, services: expect.not.arrayContaining(['web']) });
        }
      }),
      { numRuns: 100, seed: 25 },
    );
    // The figure for the report: answers needed after the first message.
    const histogram = counts.reduce<Record<number, number>>((h, n) => ({ ...h, [n]: (h[n] ?? 0) + 1 }), {});
    expect(Object.keys(histogram).every((n) => Number(n) <= 3)).toBe(true);
    console.log(`generated conversations: ${counts.length} ready; answers needed after the first message: ${JSON.stringify(histogram)}`);
  });

  it('"skip X" and "continue" go on without an unknown name; "X or Y" takes the catalogued one; "not X" rules out only X', () => {
    for (const go of ['skip Zammad', 'continue', 'that is all']) {
      const c = converse(['I want Zammad with PostgreSQL on my VPS', go, 'Go with sensible defaults for everything else.']);
      expect({ go, ready: c.ready }).toEqual({ go, ready: true });
      expect(c.document).toContain('left out as you said: Zammad');
    }
    const either = converse(['phpMyAdmin or Adminer with MariaDB on my VPS', 'Go with sensible defaults for everything else.']);
    expect(either.replies.join('\n')).not.toContain("I don't know phpMyAdmin");
    expect(either.ready).toBe(true);
    const negated = converse(['the community fork Forgejo (not Gitea), with Postgres on my VPS', 'Go with sensible defaults for everything else.']);
    const services = servicesOf(plans(negated.document).compose);
    expect(services).toEqual(expect.arrayContaining(['forgejo', 'postgres']));
    expect(services).not.toContain('gitea');
    const selfHosted = converse(['I want a self-hosted n8n automation server on my droplet with my own domain n8n.example.com and HTTPS']);
    expect(selfHosted.replies.join('\n')).not.toMatch(/I don't know (self-hosted|automation)/);
  });

  it('"my <provider> server" and "my server at host, user u" — in any message — are an existing server with those details', () => {
    const home = converse(['n8n on my home server, Ubuntu at 192.168.1.50, user pi', 'Go with sensible defaults for everything else.']);
    expect(home.document).toContain('pi@192.168.1.50, SSH port 22');
    expect(home.secrets.map((s) => s.name)).not.toEqual(expect.arrayContaining(['SERVER_HOST']));
    const later = converse(['Gitea with PostgreSQL', 'it runs on my server at 203.0.113.9, login deploy, port 2222', 'Go with sensible defaults for everything else.']);
    expect(later.document).toContain('deploy@203.0.113.9, SSH port 2222');
    for (const where of ['on my Hetzner server', 'auf meinem Hetzner-Server', 'on my droplet']) {
      const c = converse([`Uptime Kuma ${where}`, 'Go with sensible defaults for everything else.']);
      expect({ where, existing: /Existing VPS|existing server/i.test(c.document) }).toEqual({ where, existing: true });
      expect({ where, creates: /hcloud server create|doctl compute droplet create/.test(plans(c.document).implementation) }).toEqual({ where, creates: false });
    }
  });
});
