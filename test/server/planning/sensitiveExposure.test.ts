import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { readStackModel } from '../../../src/server/agents/offline/documents';
import { readCompose } from '../../../src/server/agents/verifier/composeModel';
import { verifierFactsOf } from '../../../src/server/agents/verifier/stackModelFacts';
import { verifyPlans } from '../../../src/server/agents/verifier/verifyPlan';
import { converse, plans } from '../helpers/plannerConversation';

/**
 * Every product the catalogue marks sensitive (logins, personal data), planned on a server with no domain:
 * its web ports are never public over plain HTTP. It listens on loopback, the plan says how to reach it
 * (an SSH tunnel) and why; the verifier, checking the plan on its own, finds nothing to object to. Said
 * in words ("plain http is fine"), it is served as asked and the verifier only warns.
 */

const SENSITIVE = Object.values(PRODUCTS).filter((c) => c.sensitive && c.category !== 'proxy' && c.services.some((s) => s.webLabel !== undefined));
const alias = (id: string): string => PRODUCTS[id]!.aliases[0]!.replace(/\[[^\]]*\]\??|\(\?:?|[\\()?|+*]/g, (m) => (m.startsWith('[') ? (m.includes('- ') || m.includes(' -') ? ' ' : '') : ''));

async function planned(words: string) {
  const c = converse([words, 'Go with sensible defaults for everything else.']);
  const p = plans(c.document);
  const model = readStackModel(p.implementation);
  const findings = await verifyPlans({ architecture: p.architecture, implementation: p.implementation, secrets: c.secrets.map((s) => s.name), ...verifierFactsOf(model) });
  return { ...p, findings, model };
}

test('the catalogue marks password managers, admin UIs and personal-data apps sensitive, databases not', () => {
  expect(PRODUCTS.vaultwarden!.sensitive).toBe(true);
  expect(PRODUCTS.adminer!.sensitive).toBe(true);
  expect(PRODUCTS.nextcloud!.sensitive).toBe(true);
  expect(PRODUCTS.postgres!.sensitive).toBe(false);
  expect(SENSITIVE.length).toBeGreaterThan(20);
});

describe.each(SENSITIVE.map((c) => [c.id]))('%s with no domain', (id) => {
  it('listens on loopback only, reached through an SSH tunnel the plan names', async () => {
    const p = await planned(`${alias(id)} on my server deploy@203.0.113.10, no domain, just the IP`);
    expect(p.findings.filter((f) => f.code === 'sensitive-plain-http')).toEqual([]);
    const own = new Set(PRODUCTS[id]!.services.map((s) => s.name));
    expect(readCompose(p.compose).services.some((s) => own.has(s.name))).toBe(true);
    const web = new Set(PRODUCTS[id]!.services.flatMap((s) => (s.http === false ? [] : [s.internalPort, ...(s.endpoints ?? []).map((e) => e.port)])));
    for (const s of readCompose(p.compose).services.filter((x) => own.has(x.name))) {
      for (const port of s.ports.filter((x) => web.has(x.containerPort))) expect(port.hostIp).toBe('127.0.0.1');
    }
    if (readCompose(p.compose).services.some((s) => own.has(s.name) && s.ports.length)) expect(p.architecture).toMatch(/SSH tunnel \(ssh -N -L (\d+):127\.0\.0\.1:\1 deploy@203\.0\.113\.10/);
  });
});

test('"plain http is fine" is taken in words: served on the IP, and the verifier warns instead of blocking', async () => {
  const p = await planned("it's a lab on my LAN: vaultwarden on deploy@203.0.113.10, plain http is fine, no domain");
  expect(readCompose(p.compose).services.find((s) => s.name === 'vaultwarden')!.ports.some((x) => x.hostIp === '') || /:80 \{/.test(p.architecture)).toBe(true);
  expect(p.findings.filter((f) => f.code === 'sensitive-plain-http').map((f) => f.severity)).toEqual(['warning']);
  expect(p.model?.exposures.some((e) => e.plainHttpAccepted)).toBe(true);
});

test('with a domain, a sensitive app is served through the proxy with TLS', async () => {
  const p = await planned('vaultwarden on my server deploy@203.0.113.10 at vault.example.org');
  expect(p.findings.filter((f) => f.severity === 'error')).toEqual([]);
  expect(p.architecture).toContain('- https://vault.example.org/ → vaultwarden');
});
