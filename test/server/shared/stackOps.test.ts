import fc from 'fast-check';
import Ajv from 'ajv';
import { Value } from 'typebox/value';
import { emptyStackModel, StackModel } from '../../../src/shared/stackModel';
import { applyStackOp, applyStackOps, checkStackModel, STACK_OP_TOOLS, StackOp, StackOpError, type CatalogueView } from '../../../src/shared/stackOps';

/** A small catalogue: enough to have choices between databases, a proxy, fixed host ports and upstreams. */
const entry = (id: string, category: string, ports: number[], extra: Partial<CatalogueView[string]> = {}): CatalogueView[string] => ({
  id, label: id, category, ports, needs: [], proxy: false, hostPorts: [], upstreams: ports.length ? ['web'] : [], ...extra,
});
const CATALOGUE: CatalogueView = {
  postgres: entry('postgres', 'database', [5432], { upstreams: [] }),
  mariadb: entry('mariadb', 'database', [3306], { upstreams: [] }),
  redis: entry('redis', 'cache', [6379], { upstreams: [] }),
  mongo: entry('mongo', 'database', [27017], { upstreams: [] }),
  nextcloud: entry('nextcloud', 'storage', [80], { needs: [['postgres', 'mariadb'], ['redis']] }),
  forgejo: entry('forgejo', 'git', [3000], { needs: [['postgres']], hostPorts: [2222] }),
  minio: entry('minio', 'storage', [9000, 9001], { upstreams: ['api', 'console'] }),
  caddy: entry('caddy', 'proxy', [80], { proxy: true, hostPorts: [80, 443], upstreams: [] }),
  nginxProxy: entry('nginxProxy', 'proxy', [80], { proxy: true, hostPorts: [80, 443], upstreams: [] }),
};
const IDS = Object.keys(CATALOGUE);

const apply = (ops: StackOp[]) => applyStackOps(emptyStackModel(), ops, CATALOGUE);

describe('stack operations', () => {
  it('adds a product with what it needs, linked, and removing it takes those along', () => {
    const m = apply([{ op: 'addComponent', product: 'nextcloud' }]);
    expect(m.components.map((c) => c.name)).toEqual(['nextcloud', 'postgres', 'redis']);
    expect(m.links).toEqual([{ from: 'nextcloud', to: 'postgres' }, { from: 'nextcloud', to: 'redis' }]);
    expect(applyStackOp(m, { op: 'removeComponent', name: 'nextcloud' }, CATALOGUE)).toEqual(emptyStackModel());
  });

  it('fills a need with the choice the stack already has, and takes the next one when the first is ruled out', () => {
    expect(apply([{ op: 'addComponent', product: 'mariadb' }, { op: 'addComponent', product: 'nextcloud' }]).links).toContainEqual({ from: 'nextcloud', to: 'mariadb' });
    const m = apply([{ op: 'exclude', name: 'postgres' }, { op: 'addComponent', product: 'nextcloud' }]);
    expect(m.components.map((c) => c.name)).toEqual(['nextcloud', 'mariadb', 'redis']);
  });

  it('replaces a database and keeps who reaches it; refuses one the user cannot use', () => {
    const m = apply([{ op: 'addComponent', product: 'nextcloud' }, { op: 'replaceComponent', name: 'postgres', product: 'mariadb' }]);
    expect(m.links).toContainEqual({ from: 'nextcloud', to: 'mariadb' });
    expect(m.excluded).toContain('postgres');
    expect(() => applyStackOp(m, { op: 'replaceComponent', name: 'mariadb', product: 'mongo' }, CATALOGUE)).toThrow(/nextcloud cannot use mongo; it works with postgres, mariadb/);
  });

  it('exposes through the proxy it adds, and refuses a host port the proxy holds', () => {
    const m = apply([{ op: 'addComponent', product: 'redis' }, { op: 'addComponent', product: 'nextcloud' }, { op: 'expose', component: 'nextcloud', via: 'proxy' }]);
    expect(m.components.map((c) => c.name)).toContain('caddy');
    expect(() => applyStackOp(m, { op: 'setPort', component: 'redis', hostPort: 80 }, CATALOGUE)).toThrow(/host port 80 is already taken by caddy in this stack/);
  });

  it('refuses to expose what was asked to stay private, unless the person confirms', () => {
    const m = apply([{ op: 'addComponent', product: 'postgres' }, { op: 'makePrivate', component: 'postgres' }]);
    expect(() => applyStackOp(m, { op: 'setPort', component: 'postgres', hostPort: 5432 }, CATALOGUE)).toThrow(/stay private/);
    expect(applyStackOp(m, { op: 'expose', component: 'postgres', via: 'port', hostPort: 5432, bind: 'loopback', confirmPublic: true }, CATALOGUE).exposures).toHaveLength(1);
  });

  it("refuses a host port the server's own facts say is in use, naming the holder", () => {
    const m = apply([
      { op: 'setTarget', target: { kind: 'existing', host: '203.0.113.7', user: 'deploy', port: 22 } },
      { op: 'setServerFacts', facts: { inspectedAt: '2026-01-01T00:00:00Z', portsInUse: [{ port: 80, protocol: 'tcp', holder: 'container old-web' }], containers: [], composeProjects: [] } },
      { op: 'addComponent', product: 'minio' },
    ]);
    expect(() => applyStackOp(m, { op: 'setPort', component: 'minio', hostPort: 80 }, CATALOGUE)).toThrow(/container old-web on the server/);
  });

  it('serves two endpoints of one product at two domains (the S3 API is not the console)', () => {
    const m = apply([
      { op: 'addComponent', product: 'minio' },
      { op: 'expose', component: 'minio', via: 'proxy', upstream: 'api', domain: 's3.example.com' },
      { op: 'expose', component: 'minio', via: 'proxy', upstream: 'console', domain: 'console.example.com' },
    ]);
    expect(m.exposures.map((e) => e.via === 'proxy' && [e.upstream, e.domain, e.tls])).toEqual([['api', 's3.example.com', true], ['console', 'console.example.com', true]]);
    expect(() => applyStackOp(m, { op: 'expose', component: 'minio', via: 'proxy', upstream: 'admin' }, CATALOGUE)).toThrow(/has no endpoint admin \(it has api, console\)/);
  });

  it('skips an unknown name once and says it was left out; an answer takes it back', () => {
    const m = apply([{ op: 'askUnknown', name: 'Immich' }, { op: 'askUnknown', name: 'immich' }, { op: 'skipUnknown', name: 'immich' }]);
    expect(m.unknowns).toEqual([{ name: 'Immich', status: 'skipped' }]);
    expect(m.leftOut.map((l) => l.name)).toEqual(['Immich']);
    const answered = applyStackOps(m, [{ op: 'addComponent', custom: { image: 'ghcr.io/immich-app/immich-server:v1.120.0', ports: [2283] } }, { op: 'answerUnknown', name: 'Immich', by: 'immich-server' }], CATALOGUE);
    expect(answered.leftOut).toEqual([]);
  });

  it('has one tool per operation, each with a JSON schema a model can be given', () => {
    const ajv = new Ajv({ strict: false });
    expect(STACK_OP_TOOLS.map((t) => t.name)).toEqual(StackOp.anyOf.map((s) => (s.properties.op as { const: string }).const));
    for (const t of STACK_OP_TOOLS) {
      expect(t.description.length).toBeGreaterThan(10);
      expect(() => ajv.compile(t.parameters)).not.toThrow();
    }
    const args = { component: 'minio', via: 'port', hostPort: 9000 };
    expect(ajv.validate(STACK_OP_TOOLS.find((t) => t.name === 'expose')!.parameters, args)).toBe(true);
    expect(Value.Check(StackOp, { op: 'expose', ...args })).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties over generated operation sequences
// ---------------------------------------------------------------------------------------------------

const names = fc.constantFrom(...IDS, 'app', 'ghost-name');
const port = fc.constantFrom(80, 443, 2222, 5432, 8080, 9000);
const opArb: fc.Arbitrary<StackOp> = fc.oneof(
  fc.constantFrom(...IDS).map((product) => ({ op: 'addComponent', product }) as StackOp),
  fc.record({ image: fc.constantFrom('ghcr.io/acme/app:1.2.3', 'ghcr.io/acme/api:2.0.0'), ports: fc.array(port, { maxLength: 2 }) }).map((custom) => ({ op: 'addComponent', custom }) as StackOp),
  names.map((name) => ({ op: 'removeComponent', name }) as StackOp),
  names.map((name) => ({ op: 'exclude', name }) as StackOp),
  fc.tuple(names, fc.constantFrom(...IDS)).map(([name, product]) => ({ op: 'replaceComponent', name, product }) as StackOp),
  fc.tuple(names, names).map(([from, to]) => ({ op: 'link', from, to }) as StackOp),
  fc.tuple(names, fc.option(fc.constantFrom('a.example.com', 'b.example.com'), { nil: undefined })).map(([component, domain]) => ({ op: 'expose', component, via: 'proxy', ...(domain ? { domain } : {}) }) as StackOp),
  fc.tuple(names, port).map(([component, hostPort]) => ({ op: 'setPort', component, hostPort }) as StackOp),
  names.map((component) => ({ op: 'makePrivate', component }) as StackOp),
  fc.tuple(fc.constantFrom('a.example.com', 'c.example.com'), fc.option(names, { nil: undefined })).map(([domain, component]) => ({ op: 'setDomain', domain, ...(component ? { component } : {}) }) as StackOp),
);

/** Applies what can be applied; an operation that cannot is refused with a StackOpError and changes nothing. */
function run(ops: StackOp[]): StackModel[] {
  const seen = [emptyStackModel()];
  for (const o of ops) {
    const before = seen[seen.length - 1]!;
    const frozen = JSON.stringify(before);
    try {
      seen.push(applyStackOp(before, o, CATALOGUE));
    } catch (err) {
      if (!(err instanceof StackOpError)) throw err;
    }
    expect(JSON.stringify(before)).toBe(frozen);
  }
  return seen;
}

describe('stack operation properties', () => {
  it('every model an operation yields is valid: schema, names, links, no host port published twice, private stays private', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 14 }), (ops) => {
        for (const m of run(ops)) {
          expect(checkStackModel(m, CATALOGUE)).toEqual([]);
          expect(Value.Check(StackModel, m)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('adding a product the stack does not hold, then removing it, leaves no trace', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 10 }), fc.constantFrom(...IDS), (ops, product) => {
        const m = run(ops).pop()!;
        fc.pre(!m.components.some((c) => c.name === product || (c.source.kind === 'catalogue' && c.source.id === product)) && !m.excluded.includes(product));
        let added: StackModel;
        try {
          added = applyStackOp(m, { op: 'addComponent', product }, CATALOGUE);
        } catch {
          return;
        }
        fc.pre(added.leftOut.length === m.leftOut.length);
        const removed = applyStackOp(added, { op: 'removeComponent', name: product }, CATALOGUE);
        // A product that filled a need the stack already lacked (its removal of another is held) is recorded as
        // left out again on removal: the one trace allowed, and only for a need the stack lacked before.
        const held = removed.leftOut.filter((l) => l.name === product);
        for (const l of held) expect(m.leftOut.some((x) => x.reason.includes(product) && l.reason === x.reason)).toBe(true);
        expect({ ...removed, leftOut: removed.leftOut.filter((l) => l.name !== product) }).toEqual(m);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the real catalogue', () => {
  it('lets every product be added to an empty stack, and removed without a trace', async () => {
    const { PRODUCTS } = await import('../../../src/server/agents/offline/knowledge');
    const { catalogueView } = await import('../../../src/server/agents/catalogue/view');
    const view = catalogueView(PRODUCTS);
    for (const id of Object.keys(view)) {
      const added = applyStackOp(emptyStackModel(), { op: 'addComponent', product: id }, view);
      expect(checkStackModel(added, view)).toEqual([]);
      expect(applyStackOp(added, { op: 'removeComponent', name: id }, view)).toEqual(emptyStackModel());
    }
  });
});
