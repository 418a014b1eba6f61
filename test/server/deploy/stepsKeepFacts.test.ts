import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { composeStack } from '../../../src/server/agents/offline/composer';
import { planSteps } from '../../../src/server/agents/offline/deploySteps';
import type { PlanStep } from '../../../src/server/agents/offline/documents';
import { extractFacts } from '../../../src/server/agents/offline/facts';
import { storageLine } from '../../../src/server/agents/offline/documents';
import { validationChecks } from '../../../src/server/agents/offline/validationPlanner';

/**
 * The implementation plan does what the documents promise: a storage size that needs a block volume
 * creates, attaches and mounts one (and Docker keeps its data there); an allowlist restricts the
 * firewall rules; a moved SSH port is where SSH listens afterwards, and the firewall follows it.
 */

const stackOf = (text: string) => {
  const facts = extractFacts([text]);
  facts.acceptsDefaults = true;
  return composeStack(facts, { slug: 'demo' });
};
const text = (steps: PlanStep[]): string => steps.map((s) => `${s.title}\n${s.description}\n${s.commands.join('\n')}`).join('\n');
const indexOf = (steps: PlanStep[], pattern: RegExp): number => steps.findIndex((s) => pattern.test(s.title));

describe('a storage size becomes a real block volume, mounted and used', () => {
  it('Hetzner: the volume is created and attached to the server, mounted at /mnt/data before Docker, and holds Docker\'s data', () => {
    const stack = stackOf('MinIO with 500 GB of data on Hetzner in Falkenstein');
    expect(stack.machine.volumeGb).toBe(500);
    const steps = planSteps(stack);
    const all = text(steps);
    expect(all).toMatch(/hcloud volume describe da-demo-data[^\n]*\|\| hcloud volume create --name da-demo-data --size 500 --server da-demo/);
    const mount = indexOf(steps, /data volume/i);
    expect(mount).toBeGreaterThan(0);
    expect(mount).toBeLessThan(indexOf(steps, /Docker Engine and Compose/));
    const mounting = steps[mount]!.commands.join('\n');
    expect(mounting).toContain('/dev/disk/by-id/scsi-0HC_Volume_');
    expect(mounting).toContain('/mnt/data');
    expect(mounting).toContain('"data-root": "/mnt/data/docker"');
    expect(mounting).toMatch(/UUID=[^\n]*\/etc\/fstab|\/etc\/fstab[^\n]*UUID/);
    // Verified, not assumed: the deploy's check reads Docker's root directory back.
    expect(all).toContain('{{.DockerRootDir}}');
    expect(storageLine(stack)).toContain('500 GB block volume for data, mounted at /mnt/data');
  });

  it('DigitalOcean: the volume is created in the droplet\'s region and attached to it', () => {
    const steps = planSteps(stackOf('MinIO with 500 GB of data on DigitalOcean in Frankfurt'));
    const all = text(steps);
    expect(all).toMatch(/doctl compute volume create da-demo-data --region fra1 --size 500GiB --fs-type ext4/);
    expect(all).toMatch(/doctl compute volume-action attach "\$VOLUME_ID" "\$DROPLET_ID" --wait/);
    expect(steps[indexOf(steps, /data volume/i)]!.commands.join('\n')).toContain('/dev/disk/by-id/scsi-0DO_Volume_da-demo-data');
  });

  it('AWS sizes the root disk itself: no volume, the asked size is the disk', () => {
    const steps = planSteps(stackOf('MinIO with 500 GB of data on AWS in Frankfurt'));
    expect(text(steps)).toContain('VolumeSize=520');
    expect(indexOf(steps, /data volume/i)).toBe(-1);
  });

  it('an existing server: the plan adds no disk, and a server with less free space stops the deploy, saying so', () => {
    const steps = planSteps(stackOf('MinIO with 500 GB of data on my existing server deploy@203.0.113.7'));
    const docker = steps[indexOf(steps, /Docker Engine and Compose/)]!.commands.join('\n');
    expect(docker).toContain("df -PBG \"$dir\"");
    expect(docker).toContain('520');
    expect(docker).toMatch(/needs 520 GB free/);
  });

  it('no volume and no disk check when neither the person nor the product needs more than the root disk', () => {
    const steps = planSteps(stackOf('Uptime Kuma on Hetzner'));
    expect(text(steps)).not.toContain('hcloud volume');
    expect(indexOf(steps, /data volume/i)).toBe(-1);
  });
});

describe('an allowlist and a moved SSH port are firewall rules and sshd settings', () => {
  it('Hetzner, every port only from the office: cloud firewall and ufw allow the web ports from it alone', () => {
    const all = text(planSteps(stackOf('Paperless-ngx on Hetzner, only allow access from our office IP 203.0.113.7')));
    expect(all).toMatch(/hcloud firewall add-rule da-demo-fw --direction in --protocol tcp --port 8000 --source-ips 203\.0\.113\.7\/32\n/);
    expect(all).not.toMatch(/--port 8000 --source-ips 0\.0\.0\.0\/0/);
    const ssh = all.split('\n').find((l) => l.includes('--port 22 '))!;
    for (const source of ['"$ADMIN_CIDR"', '"$SANDBOX_CIDR"', '203.0.113.7/32']) expect(ssh).toContain(`--source-ips ${source}`);
    expect(all).toContain('sudo ufw allow from 203.0.113.7/32 to any port 8000 proto tcp');
    expect(all).not.toMatch(/sudo ufw allow 8000\/tcp/);
  });

  it('DigitalOcean, AWS, Google Cloud and Azure restrict the same way', () => {
    const office = 'only allow access from our office IP 198.51.100.20';
    const digitalocean = text(planSteps(stackOf(`Uptime Kuma on DigitalOcean, ${office}`)));
    expect(digitalocean).toContain('protocol:tcp,ports:3001,address:198.51.100.20/32');
    expect(digitalocean).not.toContain('ports:3001,address:0.0.0.0/0');
    const aws = text(planSteps(stackOf(`Uptime Kuma on AWS, ${office}`)));
    expect(aws).toContain('allow 3001 198.51.100.20/32');
    expect(aws).not.toContain('allow 3001 0.0.0.0/0');
    expect(text(planSteps(stackOf(`Uptime Kuma on Google Cloud, ${office}`)))).toMatch(/--allow tcp:3001 --source-ranges 198\.51\.100\.20\/32/);
    expect(text(planSteps(stackOf(`Uptime Kuma on Azure, ${office}`)))).toMatch(/--source-address-prefixes 198\.51\.100\.20\/32 --destination-port-ranges 3001/);
  });

  it('SSH only from the office: SSH rules add the office, web ports stay open to anyone', () => {
    const all = text(planSteps(stackOf('Uptime Kuma on Hetzner, SSH only from 203.0.113.0/24')));
    expect(all).toMatch(/--port 22 [^\n]*--source-ips 203\.0\.113\.0\/24/);
    expect(all).toMatch(/--port 3001 --source-ips 0\.0\.0\.0\/0 --source-ips ::\/0/);
    expect(all).toContain('sudo ufw allow from 203.0.113.0/24 to any port 22 proto tcp');
  });

  it('a server the plan creates: SSH moves to 2222, the workspace follows, then 22 is closed', () => {
    const stack = stackOf('n8n on Hetzner, move SSH to port 2222');
    const steps = planSteps(stack);
    const all = text(steps);
    expect(all).toMatch(/hcloud firewall add-rule da-demo-fw --direction in --protocol tcp --port 2222 /);
    const move = steps[indexOf(steps, /SSH to port 2222/)]!;
    const script = move.commands.join('\n');
    expect(script).toContain('Port 2222');
    expect(script).toContain('sshd -t');
    expect(script).toContain('ssh.socket');
    expect(script).toMatch(/sed -i[^\n]*Port 2222[^\n]*ssh-keys\/config/);
    expect(script).toContain('ufw delete allow from');
    expect(script.indexOf('Port 2222')).toBeLessThan(script.indexOf('ufw delete'));
    // The new port is allowed in ufw before SSH listens there.
    const firewall = indexOf(steps, /Turn on the server's firewall/);
    expect(firewall).toBeLessThan(indexOf(steps, /SSH to port 2222/));
    expect(steps[firewall]!.commands.join('\n')).toContain('sudo ufw allow from "$SANDBOX_IP" to any port 2222 proto tcp');
  });

  it('an existing server: the new SSH port is added and opened, the old one is left as the person has it', () => {
    const steps = planSteps(stackOf('n8n on my existing server deploy@203.0.113.7, move SSH to port 2222'));
    const move = steps[indexOf(steps, /SSH to port 2222/)]!;
    expect(move.description).toMatch(/port 22 stays open/i);
    expect(move.commands.join('\n')).not.toContain('ufw delete');
    expect(move.commands.join('\n')).toContain("printf 'Port 22\\nPort 2222\\n'");
  });

  it('an existing server with an allowlist: Docker-published ports are limited in DOCKER-USER (they bypass ufw)', () => {
    const steps = planSteps(stackOf('Uptime Kuma on my existing server deploy@203.0.113.7, only allow access from our office IP 198.51.100.20'));
    const firewall = steps[indexOf(steps, /Open the published ports/)]!.commands.join('\n');
    expect(firewall).toContain('DOCKER-USER');
    expect(firewall).toMatch(/-s 198\.51\.100\.20\/32 [^\n]*--ctorigdstport "?\$?p?"?[^\n]*-j RETURN/);
    expect(firewall).toMatch(/--ctorigdstport[^\n]*-j DROP/);
    expect(firewall).not.toMatch(/ufw (--force )?enable|default deny/);
  });

  it('the journey (no allowlist, no moved port, no size) keeps its steps', () => {
    const titles = planSteps(stackOf('PostgreSQL and Redis with nginx in front, on my existing server deploy@203.0.113.7 port 2222, plain HTTP')).map((s) => s.title);
    expect(titles.some((t) => /data volume|SSH to port/i.test(t))).toBe(false);
  });
});

describe('services without a healthcheck are checked for what exists', () => {
  const stack = stackOf('Plex for my films on my existing server deploy@203.0.113.7, image plexinc/pms-docker:1.41.3 port 32400, with PostgreSQL');
  const steps = planSteps(stack);
  const executed = steps.map((s, i) => ({ step_number: i + 1, status: 'completed', description: s.title, command: s.commands.join('\n') }));

  it('the compose file marks the image the person named x-no-healthcheck, and deploy waits for running or healthy', () => {
    expect(stack.composeYaml).toMatch(/x-no-healthcheck:/);
    const start = steps.find((s) => s.title === 'Start the stack')!.commands.join('\n');
    expect(start).toContain(' running (healthy|no-healthcheck) [0-9]+$');
    expect(steps.map((s) => s.commands.join('\n')).join('\n')).not.toContain('(healthy)"');
  });

  it('validation asks a healthcheck only of services that have one, and says which have none', () => {
    const check = validationChecks(executed).find((c) => c.title === 'Every service of the compose file runs and is healthy')!;
    const name = Object.keys((YAML.parse(stack.composeYaml) as { services: Record<string, unknown> }).services).find((n) => n !== 'postgres')!;
    expect(check.description).toContain(`${name} has none in the compose file, so it is checked for running only`);
    expect(check.commands.join('\n')).toContain('"running healthy"|"running no-healthcheck")');
  });
});

describe('the steps are shell that bash parses', () => {
  const requests = [
    'MinIO with 500 GB of data on Hetzner in Falkenstein, only allow access from our office IP 203.0.113.7, move SSH to port 2222',
    'MinIO with 500 GB of data on DigitalOcean in Frankfurt, SSH only from 203.0.113.0/24',
    'Uptime Kuma on AWS, only allow access from our office IP 198.51.100.20, move SSH to port 2222',
    'Uptime Kuma on Azure, only allow access from our office IP 198.51.100.20',
    'MinIO with 500 GB of data on my existing server deploy@203.0.113.7, move SSH to port 2222, only allow access from 198.51.100.20',
    'Harden my server root@203.0.113.9 with ufw and fail2ban, no docker, move SSH to port 2222, SSH only from 198.51.100.0/24',
    'PostgreSQL and Redis with nginx in front, on my existing server deploy@203.0.113.7 port 2222, plain HTTP',
    'n8n with PostgreSQL on Hetzner with the domain n8n.example.com and https',
  ];
  it.each(requests)('%s', (request) => {
    for (const step of planSteps(stackOf(request))) {
      // A step runs its commands as one script.
      for (const command of [step.commands.join('\n')]) {
        // The outer command, and each script it sends to the server (a heredoc body).
        const scripts = [command, ...[...command.matchAll(/<<'(REMOTE_*)'\n([\s\S]*?)\n\1(?:\n|$)/g)].map((m) => m[2]!)];
        for (const script of scripts) {
          const r = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
          expect({ step: step.title, stderr: r.stderr }).toEqual({ step: step.title, stderr: '' });
        }
      }
    }
  });
});
