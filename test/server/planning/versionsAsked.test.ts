import fc from 'fast-check';
import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { versionAfter } from '../../../src/server/agents/offline/versions';
import { converse, plans } from '../helpers/plannerConversation';

/**
 * A version asked for by number runs, and the documents name the version that runs: "postgres 15" is
 * postgres:15-alpine shown as PostgreSQL 15 in the requirements and the architecture, never PostgreSQL 16
 * beside a 15 image. A number that is a size, a count or an address is no version.
 */

const VERSIONED = Object.values(PRODUCTS).filter((p) => p.versions);
const NAMES: Record<string, string[]> = { postgres: ['postgres', 'PostgreSQL'], redis: ['redis', 'Redis'], mariadb: ['mariadb', 'MariaDB'], mysql: ['mysql', 'MySQL'], mongo: ['mongodb', 'Mongo'], valkey: ['valkey'] };

describe('versions asked for by number', () => {
  it('covers every product with versions in its catalogue entry', () => {
    expect(VERSIONED.map((p) => p.id).sort()).toEqual(Object.keys(NAMES).sort());
  });

  it('runs the version asked and every document names it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...VERSIONED),
        fc.tuple(fc.integer({ min: 6, max: 17 }), fc.option(fc.integer({ min: 0, max: 11 }), { nil: undefined })),
        fc.nat(),
        fc.constantFrom('on my vps 203.0.113.10, no domain', 'for our app on my own server 10.0.0.5'),
        (product, [major, minor], pick, where) => {
          const version = minor === undefined ? `${major}` : `${major}.${minor}`;
          const names = NAMES[product.id]!;
          const said = `${names[pick % names.length]} ${version} ${where}`;
          const c = converse([said, 'Go with sensible defaults for everything else.']);
          // Shown to as many parts as the catalogue's own label shows (MongoDB 7, Redis 7.4).
          const shown = /\d+(?:\.\d+)*/.exec(product.label)![0].split('.').length;
          const label = product.versions!.label.replace('{version}', version.split('.').slice(0, shown).join('.'));
          const image = product.versions!.image.replace('{version}', version);
          const p = plans(c.document);
          const services = (YAML.parse(p.compose) as { services: Record<string, { image: string }> }).services;
          const own = product.services[0]!.name;
          // The note saying which version the catalogue's settings were written for names the pinned one, rightly.
          const claims = (text: string): string => text.split('\n').filter((l) => !l.includes('runs as you asked')).join('\n');
          expect({ said, image: services[own]?.image, named: c.document.includes(label), architecture: p.architecture.includes(label), pinned: claims(p.architecture).includes(product.label) && product.label !== label }).toEqual({
            said, image, named: true, architecture: true, pinned: false,
          });
        },
      ),
      { numRuns: 40, seed: 28 },
    );
  });

  it('shows an image named with its tag by that tag, not the pinned version', () => {
    const c = converse(['postgres:15.8-alpine and redis on my vps 203.0.113.10, no domain', 'Go with sensible defaults for everything else.']);
    expect(c.document).toContain('PostgreSQL 15: postgres (postgres:15.8-alpine)');
    expect(c.document.split('\n').filter((l) => l.includes('PostgreSQL 16') && !l.includes('runs as you asked'))).toEqual([]);
  });

  it.each([
    ['redis 2 GB', undefined], ['postgres 16 GB of data', undefined], ['mysql 10.0.0.5', undefined], ['redis 3 replicas', undefined],
    ['postgres 15 on', '15'], ['mariadb v10.11,', '10.11'], ['mysql version 8.0 please', '8.0'], ['redis 7.2.5 and', '7.2.5'],
  ])('reads %s as version %s', (text, expected) => {
    const name = text.split(' ')[0]!;
    expect(versionAfter(text, name.length)).toBe(expected);
  });
});
