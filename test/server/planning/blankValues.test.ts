import fc from 'fast-check';
import { blankIn, blankValues } from '../../../src/server/services/serverInspection/blankValues';

/** The user and address of a server named by User Secrets are replaced by their variables wherever they stand as words. */

const values = { SERVER_HOST: '203.0.113.9', SERVER_USER: 'ops' };

test('as whole words: in ssh messages and addresses, not inside longer names or addresses', () => {
  expect(blankValues('ssh: connect to host 203.0.113.9 port 22: Connection refused', values)).toBe('ssh: connect to host $SERVER_HOST port 22: Connection refused');
  expect(blankValues('ops@203.0.113.9: Permission denied (publickey).', values)).toBe('$SERVER_USER@$SERVER_HOST: Permission denied (publickey).');
  expect(blankValues('Could not reach 203.0.113.9.', values)).toBe('Could not reach $SERVER_HOST.');
  expect(blankValues('203.0.113.95 and 1203.0.113.9 and ops-web and devops and 203.0.113.9.1', values)).toBe('203.0.113.95 and 1203.0.113.9 and ops-web and devops and 203.0.113.9.1');
  expect(blankValues('a.b (c)', { SERVER_HOST: 'a.b', SERVER_USER: '' })).toBe('$SERVER_HOST (c)');
});

test('in every string of the facts, and nowhere else', () => {
  const facts = { portsInUse: [{ port: 80, protocol: 'tcp', address: '203.0.113.9', holder: 'nginx' }], containers: [], cpus: 2 };
  expect(blankIn(facts, values)).toEqual({ portsInUse: [{ port: 80, protocol: 'tcp', address: '$SERVER_HOST', holder: 'nginx' }], containers: [], cpus: 2 });
});

test('whatever surrounds an address, it never stands as a word after blanking', () => {
  const ip = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
  const around = fc.constantFrom(' ', ':', '@', '(', ')', '"', "'", '\n', ', ', '[', ']', '/', '=', '.');
  fc.assert(
    fc.property(ip, fc.array(fc.tuple(around, fc.string({ maxLength: 8 }), around), { maxLength: 6 }), (host, parts) => {
      const text = parts.map(([a, s, b]) => `${a}${host}${b}${s}`).join('');
      const out = blankValues(text, { SERVER_HOST: host });
      expect(out).not.toMatch(new RegExp(`(^|[^A-Za-z0-9_.-])${host.replace(/\./g, '\\.')}($|[^A-Za-z0-9_.-]|\\.(?![A-Za-z0-9]))`));
    }),
  );
});
