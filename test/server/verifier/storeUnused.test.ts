import fc from 'fast-check';
import YAML from 'yaml';
import { readCompose } from '../../../src/server/agents/verifier/composeModel';
import { linkFindings } from '../../../src/server/agents/verifier/linkCheck';

/**
 * A store of the same kind as one a service uses, that nothing connects to, is a plan wired wrong
 * (Forgejo asked for "with MariaDB", wired to PostgreSQL, MariaDB left running holding nothing).
 */

/** Two catalogued databases and two catalogued caches, each with how a client setting names it. */
const STORES = {
  postgres: { image: 'postgres:16.4-alpine', kind: 'database', ref: (h: string) => `postgres://app:x@${h}:5432/app` },
  mariadb: { image: 'mariadb:11.4.4', kind: 'database', ref: (h: string) => `mysql://app:x@${h}:3306/app` },
  redis: { image: 'redis:7.4.1-alpine', kind: 'cache', ref: (h: string) => `redis://${h}:6379/0` },
  valkey: { image: 'valkey/valkey:8.0.1-alpine', kind: 'cache', ref: (h: string) => `redis://${h}:6379/0` },
} as const;
type Store = keyof typeof STORES;
const names = Object.keys(STORES) as Store[];

const unused = (compose: object): string[] =>
  linkFindings(readCompose(YAML.stringify(compose)), []).filter((f) => f.code === 'store-unused').map((f) => f.where.split('.').pop()!).sort();

describe('a store nothing connects to beside one of its kind that is used', () => {
  it('is named exactly when it is unreached and a client service uses another store of its kind', () => {
    fc.assert(
      fc.property(fc.subarray(names, { minLength: 1 }), fc.func(fc.boolean()), fc.string({ minLength: 1, maxLength: 8 }).map((s) => `svc${s.replace(/[^a-z0-9]/gi, '')}`), (present, reached, client) => {
        const used = present.filter((s) => reached(s));
        const services: Record<string, object> = Object.fromEntries(present.map((s) => [s, { image: STORES[s].image }]));
        services[client] = { image: 'ghcr.io/acme/app:1.0.0', environment: Object.fromEntries(used.map((s) => [`${s.toUpperCase()}_URL`, STORES[s].ref(s)])) };
        const expected = present.filter((s) => !used.includes(s) && used.some((u) => STORES[u].kind === STORES[s].kind)).sort();
        expect(unused({ services })).toEqual(expected);
      }),
    );
  });

  it('Forgejo wired to PostgreSQL beside the MariaDB it was asked with', () => {
    const services = {
      forgejo: { image: 'codeberg.org/forgejo/forgejo:9.0.3', environment: { FORGEJO__database__HOST: 'postgres:5432' } },
      postgres: { image: 'postgres:16.4-alpine' },
      mariadb: { image: 'mariadb:11.4.4' },
    };
    expect(unused({ services })).toEqual(['mariadb']);
  });

  it('a bare service name in any setting is a connection (PAPERLESS_DBHOST: postgres)', () => {
    const services = {
      paperless: { image: 'ghcr.io/paperless-ngx/paperless-ngx:2.13.5', environment: { PAPERLESS_DBHOST: 'postgres', METABASE_DB: 'mysql://x@mariadb:3306/a' } },
      postgres: { image: 'postgres:16.4-alpine' },
      mariadb: { image: 'mariadb:11.4.4' },
    };
    expect(unused({ services })).toEqual([]);
  });
});
