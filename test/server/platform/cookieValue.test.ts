import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import { cookieValue } from '../../../src/server/plugins/cookieValue';

/**
 * The hot polls read their session cookie with `cookieValue` before Fastify has parsed any cookie: it
 * must give what `request.cookies[name]` gives (@fastify/cookie's parser) for every header.
 */
describe('cookieValue', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    await app.register(cookie);
    await app.ready();
  });
  afterAll(() => app.close());

  const same = (header: string, name: string): void => {
    expect({ header, name, value: cookieValue(header, name) }).toEqual({ header, name, value: app.parseCookie(header)[name] });
  };

  it('reads a cookie as the cookie parser does', () => {
    for (const header of [
      'da_session=abc',
      ' da_session = abc ;',
      'a=1; da_session=first; da_session=second',
      'da_session; da_session=after-a-pair-without-equals',
      'x=da_session=1; da_session=2',
      'da_session=%41%42',
      'da_session=%E0%A4%A',
      'da_sessio=1; da_session_=2',
      '\tda_session\t=\tv\t',
      'da_session=',
      '=',
      '',
      ';;da_session=v;;',
    ]) {
      same(header, 'da_session');
    }
  });

  it('agrees with the cookie parser on any header', () => {
    const piece = fc.constantFrom('da_session', '__Host-da_session', '=', ';', ' ', '\t', '%', '%41', '%E0', 'v', 'a=b');
    const header = fc.oneof(fc.string(), fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')));
    fc.assert(
      fc.property(header, fc.constantFrom('da_session', '__Host-da_session'), (h, name) => {
        expect(cookieValue(h, name)).toBe(app.parseCookie(h)[name]);
      }),
      { numRuns: 2_000 },
    );
  });
});
