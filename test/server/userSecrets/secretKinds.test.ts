import fc from 'fast-check';
import { isSecretName, isSecretVariable, looksLikeCredential } from '../../../src/server/services/userSecrets/secretKinds';
import { digestEnvironments } from '../../../src/server/services/repositories/environmentConfigs';

describe('which values are secrets', () => {
  it('names: credential words make a secret, whatever the casing; a public key does not', () => {
    for (const name of ['DB_PASSWORD', 'N8N_ENCRYPTION_KEY', 'apiToken', 'SESSION_SECRET', 'SMTP_PASS', 'AWS_SECRET_ACCESS_KEY', 'JWT', 'SENTRY_DSN']) expect([name, isSecretName(name)]).toEqual([name, true]);
    for (const name of ['N8N_HOST', 'N8N_PORT', 'DOMAIN', 'WEBHOOK_URL', 'GENERIC_TIMEZONE', 'SSH_USER', 'PUBLIC_KEY', 'STRIPE_PUBLISHABLE_KEY', 'KEYCLOAK_URL', 'PASSAGE_ID'])
      expect([name, isSecretName(name)]).toEqual([name, false]);
  });

  it('values: host names, addresses, ports, e-mail, paths and URLs without a password are never credentials (property)', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,14}[a-z0-9]$/);
    const host = fc.tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom('com', 'io', 'net', 'example', 'de')).map(([parts, tld]) => `${parts.join('.')}.${tld}`);
    const plain = fc.oneof(
      host,
      fc.integer({ min: 1, max: 65535 }).map(String),
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
      fc.tuple(label, host).map(([u, h]) => `${u}@${h}`),
      fc.tuple(fc.constantFrom('http', 'https', 'postgres'), host, fc.integer({ min: 1, max: 65535 })).map(([s, h, p]) => `${s}://${h}:${p}/path`),
      fc.array(label, { minLength: 1, maxLength: 4 }).map((p) => `/var/lib/${p.join('/')}`),
    );
    fc.assert(fc.property(plain, (value) => !looksLikeCredential(value)));
  });

  it('values: keys, tokens, passwords in URLs and long random strings are credentials (property)', () => {
    const random = fc.stringMatching(/^[A-Za-z0-9]{32,48}$/).filter((v) => /[0-9]/.test(v) && /[A-Za-z]/.test(v) && new Set(v).size > 16);
    fc.assert(fc.property(random, (value) => looksLikeCredential(value)));
    for (const value of ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'postgres://app:s3cret@db:5432/app', '-----BEGIN OPENSSH PRIVATE KEY-----\nabc', 'AKIAIOSFODNN7EXAMPLE', 'sk-proj-abc123'])
      expect([value, looksLikeCredential(value)]).toEqual([value, true]);
  });

  it('the environment dialog: plain values stay in the summary, secrets do not', () => {
    const digest = digestEnvironments([{ name: 'environment1', description: 'n8n', content: 'N8N_HOST=n8n.example.com\nN8N_PORT=5678\nN8N_ENCRYPTION_KEY=Zx81kq0PpLr7Tt2Vb9WmYc3N' }]);
    expect(digest.summary).toContain('Plain values (not secrets): N8N_HOST=n8n.example.com, N8N_PORT=5678');
    expect(digest.summary).not.toContain('Zx81kq0PpLr7Tt2Vb9WmYc3N');
    expect(isSecretVariable('N8N_HOST', 'n8n.example.com')).toBe(false);
    expect(isSecretVariable('N8N_ENCRYPTION_KEY', undefined)).toBe(true);
    expect(isSecretVariable('SOME_SETTING', 'Zx81kq0PpLr7Tt2Vb9WmYc3N')).toBe(true);
  });
});
