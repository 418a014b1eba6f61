import { Value } from 'typebox/value';
import { StackModel } from '../../../src/shared/stackModel';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { factsOfModel, modelOfStack, modelProblems } from '../../../src/server/agents/offline/stackModelBridge';
import { REQUESTS } from './requestTable';

/** The model of a plan renders that plan again: the model holds every decision the documents show. */
describe('stack model of a plan', () => {
  it.each([
    ...REQUESTS.map((r) => r.text),
    'PostgreSQL and a Redis cache, with Caddy in front serving plain HTTP',
    'A Node.js app with Postgres and Redis behind nginx with TLS at app.example.com on my server deploy@203.0.113.7 port 2222',
    'Forgejo with Postgres, Git over SSH on port 2200, at git.example.org, and Grafana at grafana.example.org',
    'Prometheus and Grafana monitoring behind Traefik at metrics.example.net on AWS, 8 GB RAM, 100 GB disk',
    'MinIO at s3.example.com and Vaultwarden at vault.example.com on Hetzner, harden the server with fail2ban',
  ].map((t) => [t] as const))('%s', (text) => {
    const stack = composeStack(extractFacts([text]));
    const model = modelOfStack(stack);
    expect(Value.Check(StackModel, model)).toBe(true);
    expect(modelProblems(model)).toEqual([]);
    const again = composeStack(factsOfModel(model));
    expect(again.composeYaml).toBe(stack.composeYaml);
    expect(again.files).toEqual(stack.files);
    expect(again.machine).toEqual(stack.machine);
  });
});

describe('the stack definition of a plan', () => {
  it('carries the model, read back as it was written', async () => {
    const { renderImplementationPlan, readStackModel } = await import('../../../src/server/agents/offline/documents');
    const stack = composeStack(extractFacts(['Nextcloud at cloud.example.org with MariaDB on Hetzner']));
    const plan = renderImplementationPlan(stack);
    expect(readStackModel(plan)).toEqual(modelOfStack(stack));
    expect(readStackModel(plan.replace('"version":1', '"version":2'))).toBeUndefined();
  });
});

describe("the server's facts", () => {
  it('stay in the model a plan carries', async () => {
    const { renderImplementationPlan, readStackModel } = await import('../../../src/server/agents/offline/documents');
    const { renderStack } = await import('../../../src/server/agents/offline/stackModelBridge');
    const model = modelOfStack(composeStack(extractFacts(['A website with Caddy on my server deploy@203.0.113.7'])));
    model.serverFacts = { inspectedAt: '2026-01-01T00:00:00Z', portsInUse: [{ port: 80, protocol: 'tcp' }], containers: [], composeProjects: [] };
    expect(readStackModel(renderImplementationPlan(renderStack(model)))?.serverFacts).toEqual(model.serverFacts);
  });
});
