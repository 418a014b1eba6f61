import fc from 'fast-check';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';

/**
 * Software the catalogue does not hold is named back however it is typed (lower case included) in the
 * places a request puts software, asked about once, and left out by name: never a catalogued stand-in
 * (the kind word after it, "outline wiki", asks for no Wiki.js). Ordinary words in the same places are
 * never taken for software.
 */

const UNKNOWN = ['immich', 'outline', 'authentik', 'bookstack', 'zabbix', 'mealie', 'nocodb', 'baserow', 'jellyseerr', 'kavita'];
const ORDINARY = ['backups', 'monitoring', 'defaults', 'daily', 'light', 'sounds', 'something', 'storage', 'email', 'family'];
const KNOWN = ['n8n', 'grafana', 'jellyfin', 'nextcloud', 'postgres'];
const SLOTS: Array<(x: string, known: string) => string> = [
  (x) => `${x} for our team on my VPS`,
  (x) => `${x} wiki on my VPS`,
  (x) => `${x} server to watch our hosts, on my VPS`,
  (x) => `a ${x} forum on my VPS`,
  (x) => `self-hosted ${x} on my VPS`,
  (x, known) => `${known} and ${x} on my VPS`,
  (x, known) => `${known} plus ${x} on my VPS`,
];

describe('unknown software in the places a request names software', () => {
  it('is named back, asked once, and left out by name without a stand-in', () => {
    fc.assert(
      fc.property(fc.constantFrom(...UNKNOWN), fc.constantFrom(...KNOWN), fc.constantFrom(...SLOTS), (name, known, slot) => {
        const said = slot(name, known);
        const c = converse([said, 'Go with sensible defaults for everything else.']);
        expect({ said, named: c.replies[0]!.includes(`I don't know ${name}`) }).toEqual({ said, named: true });
        expect({ said, askedAgain: c.replies[1]!.includes(`I don't know ${name}`) }).toEqual({ said, askedAgain: false });
        expect(c.ready).toBe(true);
        expect(c.document).toContain(`left out as you said: ${name}`);
        const services = servicesOf(plans(c.document).compose);
        expect({ said, services: services.filter((s) => s === 'wikijs') }).toEqual({ said, services: [] });
      }),
      { numRuns: 60, seed: 25 },
    );
  });

  it('never takes an ordinary word in those places for software', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORDINARY), fc.constantFrom(...KNOWN), fc.constantFrom(...SLOTS), (word, known, slot) => {
        const said = slot(word, known);
        const c = converse([said]);
        expect({ said, named: c.replies[0]!.includes("I don't know") }).toEqual({ said, named: false });
      }),
      { numRuns: 60, seed: 25 },
    );
  });

  it('keeps the catalogued product a kind word names when no unknown name comes before it', () => {
    expect(PRODUCTS.wikijs).toBeDefined();
    const c = converse(['a wiki for our team on my VPS', 'Go with sensible defaults for everything else.']);
    expect(servicesOf(plans(c.document).compose)).toContain('wikijs');
  });
});
