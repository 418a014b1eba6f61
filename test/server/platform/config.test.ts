import { ConfigError, loadConfig } from '../../../src/server/config';

describe('configuration', () => {
  it('starts with embedded defaults and no configuration', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080', databaseUrl: undefined, github: undefined });
    expect(config.dataDir).toMatch(/data$/);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ DATABASE_URL: 'mysql://localhost/x' }, /DATABASE_URL/],
    [{ REDIS_URL: 'http://localhost:6379' }, /REDIS_URL/],
    [{ PUBLIC_URL: 'example.com' }, /PUBLIC_URL/],
    [{ BODY_LIMIT_BYTES: '10' }, /BODY_LIMIT_BYTES/],
    [{ GITHUB_APP_ID: '12' }, /GITHUB_APP_PRIVATE_KEY/],
  ])('refuses %j with a message naming the variable', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('uses secure cookies behind an https PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://ops.example.com' }).secureCookies).toBe(true);
  });
});
