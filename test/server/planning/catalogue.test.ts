import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { catalogueDir, CHECKED_CATALOGUE, loadCatalogue, readProducts, writeCheckedCatalogue } from '../../../src/server/agents/catalogue/catalogue';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { composeStack, validateCompose } from '../../../src/server/agents/offline/composer';
import { emptyFacts } from '../../../src/server/agents/offline/facts';
import { composeSpecErrors, dockerComposeAvailable, dockerComposeConfig } from '../helpers/composeChecks';

/** The catalogue is data: one checked file per product, each deployable on its own. */
describe('product catalogue', () => {
  const withDockerCompose = dockerComposeAvailable();
  const products = Object.values(PRODUCTS);

  test('holds at least 60 products, every one with a pinned image, docs, and the products people name most', () => {
    expect(products.length).toBeGreaterThanOrEqual(60);
    for (const id of ['uptime-kuma', 'vaultwarden', 'minio', 'gitea', 'keycloak', 'mastodon', 'wordpress', 'loki', 'promtail', 'mariadb', 'mysql', 'n8n', 'postgres', 'redis', 'rabbitmq', 'caddy', 'traefik', 'prometheus', 'grafana', 'elk']) {
      expect(PRODUCTS[id]).toBeDefined();
    }
    for (const c of products) {
      expect(c.docs).toMatch(/^https:\/\//);
      for (const s of c.services) if (s.image !== 'build') expect(s.image).toMatch(/^[a-z0-9./-]+:(?!latest$)[\w.-]+$/);
    }
    // The stand-ins the deploy tests build are named after these exact images.
    expect(PRODUCTS.postgres!.services[0]!.image).toBe('postgres:16.4-alpine');
    expect(PRODUCTS.redis!.services[0]!.image).toBe('redis:7.4.1-alpine');
    expect(PRODUCTS.web!.services[0]!.image).toBe('nginx:1.27.2-alpine');
    expect(PRODUCTS.caddy!.services[0]!.image).toBe('caddy:2.8.4-alpine');
    expect(PRODUCTS.mariadb!.services[0]!.image).not.toBe(PRODUCTS.mysql!.services[0]!.image);
  });

  test("the build's checked copy is the catalogue the YAML gives, and a start reads it instead", () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-build-'));
    try {
      expect(writeCheckedCatalogue(out)).toBe(Object.keys(PRODUCTS).length);
      expect(fs.readdirSync(out)).toEqual([CHECKED_CATALOGUE]);
      expect(loadCatalogue(out)).toEqual(readProducts(catalogueDir()));
      expect(loadCatalogue(out)).toEqual(PRODUCTS);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  test('adding a product is adding one file; a bad file stops the start naming the file and the field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'i11-catalogue-'));
    try {
      for (const f of fs.readdirSync(catalogueDir())) fs.copyFileSync(path.join(catalogueDir(), f), path.join(dir, f));
      const extra = YAML.parse(fs.readFileSync(path.join(dir, 'gotify.yaml'), 'utf8')) as Record<string, unknown> & { services: Array<Record<string, unknown>> };
      extra.id = 'gotify-two';
      extra.aliases = ['gotify two'];
      extra.secrets = [];
      extra.services[0]!.name = 'gotify-two';
      extra.services[0]!.environment = {};
      fs.writeFileSync(path.join(dir, 'gotify-two.yaml'), YAML.stringify(extra));
      expect(Object.keys(loadCatalogue(dir))).toContain('gotify-two');

      extra.services[0]!.image = 'gotify/server:latest';
      fs.writeFileSync(path.join(dir, 'gotify-two.yaml'), YAML.stringify(extra));
      expect(() => loadCatalogue(dir)).toThrow(/gotify-two\.yaml: \/services\/0\/image/);

      extra.services[0]!.image = 'gotify/server:2.6.1';
      const healthcheck = extra.services[0]!.healthcheck;
      extra.services[0]!.healthcheck = { test: ['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1/health'] };
      fs.writeFileSync(path.join(dir, 'gotify-two.yaml'), YAML.stringify(extra));
      expect(() => loadCatalogue(dir)).toThrow(/gotify-two\.yaml: service gotify-two's healthcheck sends HEAD/);

      extra.services[0]!.healthcheck = healthcheck;
      extra.requires = ['nothing-like-this'];
      fs.writeFileSync(path.join(dir, 'gotify-two.yaml'), YAML.stringify(extra));
      expect(() => loadCatalogue(dir)).toThrow(/gotify-two\.yaml: refers to nothing-like-this/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each(products.filter((c) => c.category !== 'proxy').map((c) => [c.id] as const))('%s alone makes a compose file real tools accept', (id) => {
    const facts = emptyFacts();
    facts.components.add(id);
    for (const dep of PRODUCTS[id]!.requires) facts.components.add(dep);
    facts.domain = 'example.org';
    facts.domains.push({ host: 'example.org' });
    facts.provider = 'vps';
    const stack = composeStack(facts);
    expect(validateCompose(stack.composeYaml, stack.secrets.map((s) => s.name))).toEqual([]);
    expect(composeSpecErrors(YAML.parse(stack.composeYaml))).toEqual([]);
    if (withDockerCompose) expect(dockerComposeConfig(stack.composeYaml, stack.files)).toBe('');
  });
});
