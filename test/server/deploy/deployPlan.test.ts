import { composeStack } from '../../../src/server/agents/offline/composer';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import { extractFacts, type ProviderId } from '../../../src/server/agents/offline/facts';
import { readStackDefinition, renderArchitecturePlan, renderImplementationPlan } from '../../../src/server/agents/offline/documents';
import { readSshTarget } from '../../../src/server/agents/offline/sshTarget';
import { validationChecks } from '../../../src/server/agents/offline/validationPlanner';

const JOURNEY = 'PostgreSQL and Redis with nginx in front, on my existing server deploy@203.0.113.7 port 2222, plain HTTP';
const stackOf = (text: string) => {
  const facts = extractFacts([text]);
  facts.acceptsDefaults = true;
  return composeStack(facts);
};
const allCommands = (text: string): string => planSteps(stackOf(text)).map((s) => s.commands.join('\n')).join('\n');

describe('the SSH target in the person\'s words', () => {
  it.each([
    ['on my existing server deploy@203.0.113.7 port 2222', { user: 'deploy', host: '203.0.113.7', port: 2222 }],
    ['my server is root@vps.example.com, SSH port 2200', { user: 'root', host: 'vps.example.com', port: 2200 }],
    ['ssh -p 2022 admin@10.0.0.5', { user: 'admin', host: '10.0.0.5', port: 2022 }],
    ['deploy to ubuntu@192.168.1.20:2201 please', { user: 'ubuntu', host: '192.168.1.20', port: 2201 }],
    ['my existing server root@198.51.100.4', { user: 'root', host: '198.51.100.4', port: 22 }],
  ])('%s', (text, target) => {
    expect(readSshTarget(text)).toEqual(target);
  });

  it.each(['send alerts to ops@example.com', 'my server is root@300.1.1.1', 'server deploy@203.0.113.7 port 70000'])('no target in "%s"', (text) => {
    expect(readSshTarget(text)).toBeUndefined();
  });

  it('makes the provider the existing server, asks only for the key as a secret, and survives the architecture plan', () => {
    const stack = stackOf(JOURNEY);
    expect(stack.facts.provider).toBe('vps');
    expect(stack.secrets.map((s) => [s.name, s.secret_type])).toEqual([
      ['SSH_PRIVATE_KEY', 'ssh_private_key'],
      ['POSTGRES_PASSWORD', 'password'],
      ['REDIS_PASSWORD', 'password'],
    ]);
    const back = readStackDefinition(renderArchitecturePlan(stack));
    expect(back?.facts.sshTarget).toEqual({ user: 'deploy', host: '203.0.113.7', port: 2222 });
  });
});

describe('deploy steps to an existing server', () => {
  const steps = planSteps(stackOf(JOURNEY));
  const text = steps.map((s) => s.commands.join('\n')).join('\n');

  it('pins the host key on first contact and refuses any other afterwards', () => {
    expect(steps[0]!.commands.join('\n')).toContain('StrictHostKeyChecking=accept-new');
    expect(steps[0]!.commands.join('\n')).toContain('ssh-keygen -l -f ssh-keys/known_hosts');
    expect(text).toContain('StrictHostKeyChecking yes');
    expect(text).toContain('Port 2222');
    expect(text).not.toContain('~/.ssh/deploy_key');
  });

  it('finds out Docker, Compose v1 or v2 and the package manager instead of assuming', () => {
    expect(text).toMatch(/docker compose version/);
    expect(text).toMatch(/command -v docker-compose/);
    expect(text).toMatch(/for c in apt-get dnf yum zypper apk pacman/);
    expect(text).not.toMatch(/sudo docker compose up/);
  });

  it('never turns a firewall on or closes anything on an existing server', () => {
    const firewall = steps.find((s) => /firewall/i.test(s.title))!.commands.join('\n');
    expect(firewall).not.toMatch(/ufw (--force )?enable|default deny|ufw deny|--remove-port/);
    expect(firewall).toContain('ufw allow 2222/tcp');
    expect(firewall).toContain('ufw allow "$p/tcp"');
  });

  it('starts the stack and waits until every container is healthy', () => {
    const start = steps.find((s) => s.title === 'Start the stack')!.commands.join('\n');
    expect(start).toContain('compose pull --quiet\n');
    // Compose failing to start a container (its port taken) fails the gate in words, as an unhealthy one does.
    expect(start).toContain('if { compose up -d --remove-orphans || { echo "a container could not be started: compose up exited with $? (its error is in the output above)" >&2; false; }; } && gate; then');
    expect(start).toContain('running (healthy|no-healthcheck)');
    // A change is a release: the last healthy one's files are kept on the server and put back when the gate fails.
    expect(start).toContain('health gate failed: restoring the last healthy release');
  });
});

describe('deploy steps that create a server', () => {
  it.each<ProviderId>(['aws', 'digitalocean', 'hetzner', 'gcp', 'azure'])('%s: nothing ends the step early, creation looks for existing resources first', (provider) => {
    const words: Record<ProviderId, string> = { aws: 'AWS', digitalocean: 'DigitalOcean', hetzner: 'Hetzner', gcp: 'Google Cloud', azure: 'Azure', vps: '' };
    const text = allCommands(`nginx web server on ${words[provider]} in Frankfurt, no domain`);
    expect(text).not.toMatch(/exit 0/);
    expect(text).toContain('StrictHostKeyChecking=accept-new');
    expect(text).toContain('SANDBOX_CIDR');
    const creates = [...text.matchAll(/(create|run-instances|allocate-address|import)\b/g)].length;
    const finds = [...text.matchAll(/(describe|list|show)\b/g)].length;
    expect(finds).toBeGreaterThanOrEqual(Math.min(creates, 3));
  });

  it('compares DNS answers only when both sides are non-empty', () => {
    const text = allCommands('n8n on Hetzner with the domain n8n.example.com');
    expect(text).toContain('[ -n "$IP" ] ||');
    expect(text).toMatch(/\[ -n "\$a" \] && \[ "\$a" = "\$IP" \]/);
  });
});

describe('validation of a deployed stack', () => {
  const executed = planSteps(stackOf(JOURNEY)).map((s, i) => ({ step_number: i + 1, status: 'completed', description: s.title, command: s.commands.join('\n') }));

  it('checks the running system over SSH and from outside, not the workspace', () => {
    const checks = validationChecks(executed);
    expect(checks.map((c) => c.title)).toEqual([
      'Reach the server with its pinned host key',
      'Every service of the compose file runs and is healthy',
      "The proxy answers on the server's address",
      'The firewall is as planned',
    ]);
    expect(checks[1]!.commands.join('\n')).toContain('for s in postgres redis proxy; do');
    expect(checks[3]!.commands.join('\n')).toMatch(/open 80;[\s\S]*open 5432;[\s\S]*open 6379;/);
  });

  it('still checks the server when the executed steps deployed nothing (every remote step changed to echo)', () => {
    const stack = stackOf(JOURNEY);
    const echoed = executed.map((s) => ({ ...s, command: `echo "step ${s.step_number} skipped"` }));
    const titles = validationChecks(echoed, renderImplementationPlan(stack)).map((c) => c.title);
    expect(titles).toContain('Reach the server with its pinned host key');
    expect(titles).toContain('Every service of the compose file runs and is healthy');
    expect(titles).not.toContain('List the workspace');
  });

  it('adds the domain and the certificate where TLS is promised', () => {
    const stack = stackOf('n8n with PostgreSQL on my existing server root@203.0.113.9, domain n8n.example.com with https');
    const steps = planSteps(stack).map((s, i) => ({ step_number: i + 1, status: 'completed', description: s.title, command: s.commands.join('\n') }));
    const titles = validationChecks(steps, renderArchitecturePlan(stack)).map((c) => c.title);
    expect(titles).toContain('The site answers on n8n.example.com');
    expect(titles).toContain('The certificate of n8n.example.com is valid');
  });
});
