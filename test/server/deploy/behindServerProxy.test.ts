import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { renderImplementationPlan } from '../../../src/server/agents/offline/documents';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { placeOfProject } from '../../../src/server/agents/offline/stackPlace';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { requireInCi, sshTo, testServer } from '../helpers/testServer';

/**
 * A stack deployed to the real test server beside a reverse proxy the server already runs in a container
 * (the inspection saw it holding port 80): the stack adds no proxy, its web service listens on loopback,
 * the deploy verifies that port; then, doing what the plan tells the person (join the stack's network,
 * add the site, reload), the domain is served through their proxy.
 */

const server = testServer;
requireInCi(server);

(server || process.env.CI ? describe : describe.skip)("deploying behind the server's own proxy", () => {
  const s = server!;
  const place = placeOfProject({ id: 710_000 + (process.pid % 100_000), name: 'jest behind proxy' });
  // Their proxy: a container of its own; published on a port no other test takes (the facts below say it holds 80, as an inspection would).
  const theirs = `their-proxy-${process.pid}`;
  const theirPort = 18_000 + (process.pid % 1000);
  let workspace: string;
  const reset = (): void => void sshTo(s, `docker rm -f ${theirs} >/dev/null 2>&1; if [ -d ${place.dir} ]; then cd ${place.dir} && docker-compose down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${place.dir}`);
  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-behind-proxy-'));
    mkdirSync(path.join(workspace, 'ssh-keys'));
    reset();
  });
  afterAll(() => {
    reset();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('deploys on loopback, verifies it, and the site the plan gives serves the domain through their nginx', () => {
    sshTo(s, `docker run -d --name ${theirs} -p ${theirPort}:80 nginx:1.27.2-alpine >/dev/null`);
    const serverFacts = {
      inspectedAt: new Date().toISOString(),
      portsInUse: [22, 80].map((port) => ({ port, protocol: 'tcp' as const, holder: port === 22 ? 'sshd' : `container ${theirs}` })),
      containers: [{ name: theirs, image: 'nginx:1.27.2-alpine' }],
      composeProjects: [],
    };
    const stack = composeStack(extractFacts([`a static website at site.example.org on my existing server ${s.user}@${s.host} port ${s.port}`]), { place, serverFacts });
    expect(stack.proxy).toBeUndefined();
    expect(stack.serverSite?.proxy.kind.id).toBe('nginx');
    expect(stack.published.every((p) => p.port.startsWith('127.0.0.1:'))).toBe(true);

    const env = { ...process.env, SSH_PRIVATE_KEY: readFileSync(s.private_key_file, 'utf8') };
    // DNS for example.org cannot point at the test server: that step is the person's, everything else runs as written.
    const steps = parsePlanSteps(renderImplementationPlan(stack)).filter((x) => !x.description.startsWith('Point DNS'));
    const ran = steps.map((x) => {
      const r = spawnSync('bash', ['-c', `set -euo pipefail\n${x.command ?? ''}`], { cwd: workspace, env, encoding: 'utf8', timeout: 600_000 });
      return { title: x.description, status: r.status, output: `${r.stdout}${r.stderr}` };
    });
    for (const r of ran) expect({ step: r.title, status: r.status, output: r.status === 0 ? '' : r.output }).toEqual({ step: r.title, status: 0, output: '' });
    const port = stack.published[0]!.port.split(':')[1];
    expect(ran.find((r) => r.title === 'Verify the deployment')!.output).toContain(`web answers on 127.0.0.1:${port} (for site.example.org): HTTP 200`);

    // What the notes tell the person: their proxy joins the stack's network and gets the site.
    const join = stack.notes.join(' ').match(/docker network connect (\S+) (\S+)\)/);
    expect(join?.[2]).toBe(theirs);
    sshTo(s, `docker network connect ${join![1]} ${theirs}`);
    const site = Buffer.from(stack.serverSite!.text).toString('base64');
    sshTo(s, `echo ${site} | base64 -d | docker exec -i ${theirs} sh -c 'cat > /etc/nginx/conf.d/site.conf' && docker exec ${theirs} nginx -t && docker exec ${theirs} nginx -s reload && sleep 1`);
    // The stack's page through their proxy by the domain's name; their own site for any other name, untouched.
    expect(sshTo(s, `curl -fsS -H 'Host: site.example.org' http://127.0.0.1:${theirPort}/`)).toContain(`<h1>${stack.name} is running</h1>`);
    expect(sshTo(s, `curl -fsS http://127.0.0.1:${theirPort}/`)).toContain('stand-in nginx');
  }, 900_000);
});
