import fc from 'fast-check';
import YAML from 'yaml';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { emptyFacts, extractFacts, type Facts } from '../../../src/server/agents/offline/facts';
import { readStackModel } from '../../../src/server/agents/offline/documents';
import { verifierFactsOf } from '../../../src/server/agents/verifier/stackModelFacts';
import { verifyPlans } from '../../../src/server/agents/verifier/verifyPlan';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';
import { composeSpecErrors } from '../helpers/composeChecks';

/** Grafana reads what the stack holds: its data sources are provisioned from the catalogue, and it brings Prometheus only when it has nothing to read. */

const factsWith = (ids: string[], more: Partial<Facts> = {}): Facts => Object.assign(emptyFacts(), { provider: 'vps' as const }, more, { components: new Set(ids) });

interface Provisioned {
  name: string;
  type: string;
  url: string;
  isDefault: boolean;
  secureJsonData?: Record<string, string>;
}

/** Products Grafana reads: those with a service the catalogue says is a data source. */
const SOURCES = Object.values(PRODUCTS).filter((p) => p.services.some((s) => s.datasource)).map((p) => p.id);
const GRAFANA = PRODUCTS.grafana!;

const provisioned = (ids: string[]): { stack: ReturnType<typeof composeStack>; sources: Provisioned[] } => {
  const stack = composeStack(factsWith(['grafana', ...ids]));
  const file = stack.files.find((f) => f.path === GRAFANA.services[0]!.generates!.path)!;
  return { stack, sources: (YAML.parse(file.content) as { datasources: Provisioned[] }).datasources };
};

/** The host a data source URL names (`http://loki:3100`, `postgres:5432`). */
const hostOf = (url: string): string => (/^[a-z]+:\/\//.test(url) ? new URL(url).hostname : url.split(':')[0]!);

describe("Grafana's data sources, from the catalogue", () => {
  test('every product Grafana can read is a choice of its need for something to read, Prometheus first', () => {
    expect(SOURCES.length).toBeGreaterThanOrEqual(6);
    const need = GRAFANA.needs.find((n) => n.includes('prometheus'))!;
    expect(need[0]).toBe('prometheus');
    expect([...need].sort()).toEqual([...SOURCES].sort());
    // Grafana waits for no product by name: what it waits for follows from what it reads.
    expect(GRAFANA.services[0]!.dependsOn ?? []).toEqual([]);
  });

  test('any set of readable products: each is provisioned at a service of the stack, its credentials from the stack secrets through Grafana environment, and nothing else is brought', () => {
    fc.assert(
      fc.property(fc.subarray(SOURCES, { minLength: 1 }), (ids) => {
        const { stack, sources } = provisioned(ids);
        const grafana = stack.services.find((s) => s.name === 'grafana')!;
        // Nothing Grafana did not need: the stack is what was asked (and what those products need themselves).
        expect(stack.components.map((c) => c.id).sort()).toEqual(composeStack(factsWith(ids)).components.map((c) => c.id).concat('grafana').sort());
        const readable = stack.services.filter((s) => s.datasource);
        expect(sources.map((d) => d.name).sort()).toEqual(readable.map((s) => s.datasource!.name).sort());
        expect(sources.filter((d) => d.isDefault)).toHaveLength(1);
        const names = new Set(stack.services.map((s) => s.name));
        const secrets = new Set(stack.secrets.map((s) => s.name));
        for (const d of sources) {
          const host = hostOf(d.url);
          expect(names.has(host)).toBe(true);
          const service = stack.services.find((s) => s.name === host)!;
          expect(d.url).toContain(String(service.internalPort));
          // Grafana reaches it on a network both are on, and waits for it.
          expect(service.networks.some((n) => grafana.networks.includes(n))).toBe(true);
          expect(grafana.dependsOn).toContain(host);
          for (const value of Object.values(d.secureJsonData ?? {})) {
            const secret = /^\$\{([A-Z0-9_]+)\}$/.exec(value)?.[1];
            expect(secret).toBeDefined();
            expect(secrets.has(secret!)).toBe(true);
            expect(grafana.environment![secret!]).toBe(`\${${secret}}`);
          }
        }
        expect(composeSpecErrors(stack.compose)).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  test('Grafana alone reads Prometheus (and its node-exporter): something to show', () => {
    const { stack, sources } = provisioned([]);
    expect(stack.services.map((s) => s.name).sort()).toEqual(['grafana', 'node-exporter', 'prometheus']);
    expect(sources).toEqual([expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true })]);
  });

  test('no password is written into the provisioning file: Grafana reads each from its environment', () => {
    const { stack } = provisioned(['postgres', 'influxdb', 'elk', 'mysql']);
    const file = stack.files.find((f) => f.path.endsWith('datasources.yml'))!.content;
    // References only, and only among the credentials: every other field is plain data.
    for (const d of (YAML.parse(file) as { datasources: Provisioned[] }).datasources) {
      const { secureJsonData, ...rest } = d;
      expect(JSON.stringify(rest)).not.toContain('$');
      for (const v of Object.values(secureJsonData ?? {})) expect(v).toMatch(/^\$\{[A-Z][A-Z0-9_]*\}$/);
    }
    expect(file).toContain('password: ${POSTGRES_PASSWORD}');
    expect(file).toContain('token: ${INFLUXDB_ADMIN_TOKEN}');
    expect(file).toContain('basicAuthPassword: ${ELASTIC_PASSWORD}');
  });
});

describe('Grafana asked beside a product it can read brings no Prometheus', () => {
  test.each([
    ['grafana with postgresql on my vps', ['grafana', 'postgres'], 'grafana-postgresql-datasource'],
    ['grafana and loki on my vps', ['grafana', 'loki'], 'loki'],
    ['influxdb + grafana on my vps', ['grafana', 'influxdb'], 'influxdb'],
    ['grafana with mysql on my vps', ['grafana', 'mysql'], 'mysql'],
  ])('%s', (said, expected, type) => {
    const facts = extractFacts([said]);
    expect([...facts.components].sort()).toEqual(expected);
    const stack = composeStack(facts);
    expect(stack.services.map((s) => s.name)).not.toContain('prometheus');
    const file = stack.files.find((f) => f.path.endsWith('datasources.yml'))!.content;
    expect((YAML.parse(file) as { datasources: Provisioned[] }).datasources.map((d) => d.type)).toEqual([type]);
  });

  test('a small Grafana + PostgreSQL plan passes the verifier and deploys the provisioning file', async () => {
    const c = converse(['grafana with postgres on my VPS deploy@203.0.113.10', 'Go with sensible defaults for everything else.']);
    expect(c.ready).toBe(true);
    const p = plans(c.document);
    expect(servicesOf(p.compose)).toEqual(['grafana', 'postgres']);
    expect(p.implementation).toContain("cat > stack/grafana/provisioning/datasources/datasources.yml <<'EOF'");
    const facts = verifierFactsOf(readStackModel(p.implementation) ?? readStackModel(p.architecture));
    const findings = await verifyPlans({ architecture: p.architecture, implementation: p.implementation, secrets: c.secrets.map((s) => s.name), ...facts });
    expect(findings.filter((f) => f.severity === 'error').map((f) => `${f.code}: ${f.message}`)).toEqual([]);
  });
});
