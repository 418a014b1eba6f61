import { spawnSync } from 'node:child_process';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { serverSiteStep } from '../../../src/server/agents/offline/serverProxySteps';
import { standinBaseImage } from '../helpers/testServer';

/**
 * The step that adds a stack's site to the nginx a server already runs, run as written against a real
 * nginx: the test server's stand-in base image (Debian's nginx and curl) in a container of this test's
 * own, as root. Only the transport differs: the step's `ssh … 'bash -s'` is given the container's shell
 * (`docker exec -i … bash -s`) instead of an SSH login; its script, heredocs and checks run unchanged.
 */

const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
const image = standinBaseImage();
const container = `da-proxy-site-${process.pid}`;

/** Runs a step's command with `ssh` meaning the container's shell. */
function runStep(command: string): { status: number | null; output: string } {
  const r = spawnSync('bash', ['-c', `set -euo pipefail\nssh() { docker exec -i ${container} bash -s; }\n${command}`], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
const inside = (script: string) => docker('exec', container, 'bash', '-c', script);

(image ? describe : describe.skip)("adding the site to the server's nginx", () => {
  beforeAll(() => {
    expect(docker('run', '-d', '--rm', '--name', container, '--entrypoint', 'sleep', image!, '600').status).toBe(0);
    // The server's own nginx on 80 (Debian's default site), and "the app" on the loopback port the stack publishes.
    const app = 'server {\n  listen 127.0.0.1:5678;\n  location / { return 200 "n8n here"; }\n}\n';
    expect(inside(`printf '%s' '${app}' > /etc/nginx/conf.d/zz-app.conf && nginx && sleep 1 && curl -fsS http://127.0.0.1:5678/`).stdout).toBe('n8n here');
  });
  afterAll(() => void docker('rm', '-f', container));

  const stack = composeStack(extractFacts(['n8n at flows.example.org on my server deploy@203.0.113.7, nginx already runs on 80/443. add the site to our nginx for us']));
  const step = serverSiteStep(stack)!;

  it('writes the site, passes nginx -t, reloads, and the domain answers through nginx', () => {
    const r = runStep(step.commands.join('\n'));
    expect({ status: r.status, output: r.status === 0 ? '' : r.output }).toEqual({ status: 0, output: '' });
    expect(r.output).toContain('flows.example.org through Nginx: HTTP 200 (n8n directly: HTTP 200)');
    expect(inside(`curl -fsS -H 'Host: flows.example.org' http://127.0.0.1/`).stdout).toBe('n8n here');
    // Another name still gets the server's own default site, untouched.
    expect(inside(`curl -sS -H 'Host: other.example.org' http://127.0.0.1/`).stdout).not.toBe('n8n here');
  });

  it('a configuration nginx refuses takes the site out again and leaves nginx as it was', () => {
    inside(`rm -f ${stack.serverSite!.file} && nginx -s reload && sleep 1`);
    inside("printf 'server { listen 80; this_is_no_directive; }\\n' > /etc/nginx/conf.d/zz-broken.conf");
    const r = runStep(step.commands.join('\n'));
    inside('rm -f /etc/nginx/conf.d/zz-broken.conf');
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('the Nginx configuration test failed: the site was taken out again and Nginx was not reloaded');
    expect(inside(`test -e ${stack.serverSite!.file}`).status).not.toBe(0);
    expect(inside(`curl -sS -H 'Host: flows.example.org' http://127.0.0.1/`).stdout).not.toBe('n8n here');
  });

  it('a site written where nginx does not read it fails the step: the domain gets the default site, HTTP 200 too', () => {
    inside(`rm -f ${stack.serverSite!.file} && nginx -s reload && sleep 1`);
    // This server's nginx does not read conf.d, where the site goes (the app moves to sites-enabled); its
    // default site answers every other name with HTTP 200, as the app does.
    inside("cp /etc/nginx/nginx.conf /tmp/nginx.conf.kept && sed -i '/conf\\.d/d' /etc/nginx/nginx.conf && cp /etc/nginx/conf.d/zz-app.conf /etc/nginx/sites-enabled/zz-app && nginx -s reload && sleep 1");
    try {
      const r = runStep(step.commands.join('\n'));
      expect(r.status).not.toBe(0);
      expect(r.output).toContain('Nginx answers flows.example.org with its default site, not n8n: the new site is not in effect');
    } finally {
      inside(`cp /tmp/nginx.conf.kept /etc/nginx/nginx.conf && rm -f /etc/nginx/sites-enabled/zz-app ${stack.serverSite!.file} && nginx -s reload && sleep 1`);
    }
  });

  it('an app that does not answer fails the step, naming what nginx cannot reach', () => {
    inside('rm -f /etc/nginx/conf.d/zz-app.conf && nginx -s reload && sleep 1');
    const r = runStep(step.commands.join('\n'));
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('n8n does not answer at 127.0.0.1:5678');
  });
});
