import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';

/**
 * Adding a product or a database touches one file: a temp catalogue gets a new database and a new app
 * that uses it, and the composer wires them from the files alone (environment template, backup, healthcheck,
 * proxy upstream) with no code change. The catalogue is read once per module registry, so the modules are
 * imported after CATALOGUE_DIR points at the temp copy.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-file-catalogue-'));
const source = path.resolve('src/server/agents/catalogue/products');
for (const f of fs.readdirSync(source)) fs.copyFileSync(path.join(source, f), path.join(dir, f));
fs.writeFileSync(path.join(dir, 'cockroach.yaml'), YAML.stringify({
  id: 'cockroach', label: 'CockroachDB 24', category: 'database', purpose: 'distributed SQL database', docs: 'https://www.cockroachlabs.com/docs/', aliases: ['cockroach(db)?'], tls: 'none', diskGb: 20,
  services: [{ name: 'cockroach', image: 'cockroachdb/cockroach:v24.2.4', command: ['start-single-node', '--insecure'], volumes: ['cockroach_data:/cockroach/cockroach-data'], internalPort: 26257,
    healthcheck: { test: ['CMD', 'curl', '-fsS', 'http://127.0.0.1:8080/health?ready=1'] }, networks: ['backend'], memoryMb: 512,
    backup: { dump: 'cockroach dump --insecure defaultdb', extension: 'sql' } }],
}));
fs.writeFileSync(path.join(dir, 'tinyapp.yaml'), YAML.stringify({
  id: 'tinyapp', label: 'Tiny App 1', category: 'productivity', purpose: 'a small web app', docs: 'https://example.org/docs', aliases: ['tinyapp'], requires: [['cockroach', 'postgres']], tls: 'recommended', diskGb: 1,
  services: [{ name: 'tinyapp', image: 'example/tinyapp:1.0.0', internalPort: 3000, publish: ['80:3000'], healthcheck: { test: ['CMD', 'wget', '-q', '-O', '/dev/null', 'http://127.0.0.1:3000/health'] }, networks: ['edge', 'backend'], webLabel: 'tiny', memoryMb: 128,
    uses: { cockroach: { DATABASE_URL: 'postgresql://root@cockroach:26257/defaultdb?sslmode=disable' }, postgres: { DATABASE_URL: 'postgresql://app:${POSTGRES_PASSWORD}@postgres:5432/app' } } }],
}));

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a new database and a new app that uses it are wired from their files alone', async () => {
  process.env.CATALOGUE_DIR = dir;
  const { composeStack } = await import('../../../src/server/agents/offline/composer');
  const { planSteps } = await import('../../../src/server/agents/offline/deploySteps');
  const { emptyFacts } = await import('../../../src/server/agents/offline/facts');
  const facts = Object.assign(emptyFacts(), { provider: 'vps' as const, domain: 'example.org', domains: [{ host: 'example.org' }], tls: true, components: new Set(['tinyapp', 'cockroach']) });
  const stack = composeStack(facts);
  const app = stack.services.find((s) => s.name === 'tinyapp')!;
  expect(app.environment?.DATABASE_URL).toContain('@cockroach:26257');
  expect(app.dependsOn).toContain('cockroach');
  expect(stack.services.some((s) => s.name === 'postgres')).toBe(false);
  expect(stack.routes).toEqual([{ host: 'example.org', service: 'tinyapp', port: 3000 }]);
  expect(stack.services.find((s) => s.name === 'cockroach')!.healthcheck!.test).toContain('http://127.0.0.1:8080/health?ready=1');
  const steps = JSON.stringify(planSteps(stack));
  expect(steps).toContain('cockroach dump --insecure defaultdb');
});
