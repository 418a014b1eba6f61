import type { Step } from '../../../src/shared/api/execution';
import { DOCUMENTATION } from '../../../src/shared/constants/documentation';
import { parseReadback, parseSsLine } from '../../../src/server/services/serverReadback/parseReadback';
import { readbackCommand, readbackServer } from '../../../src/server/services/serverReadback/readbackCommand';
import { evidenceOf, latestReadback, renderedFromServer, serverSection } from '../../../src/server/services/documentation/serverSections';
import { textRedactor } from '../../../src/server/sandbox/redactor';

const COMPOSE = ['services:', '  proxy:', '    image: nginx:1.27.2-alpine', '  postgres:', '    image: postgres:16.4-alpine', '== da-readback facts =='].join('\n');

/** What the read-back check prints on a Debian 12 server with Compose v1, no firewall and no TLS. */
function output(options: { passwordAuth: 'yes' | 'no'; firewall: string }): string {
  const text = [
    '== da-readback facts ==',
    'os: Debian GNU/Linux 12 (bookworm)',
    'docker: 20.10.24+dfsg1',
    'compose: 1.29.2 (docker-compose)',
    'cpus: 2',
    'memory_kb: 24684084',
    'disk_total_bytes: 270553174016',
    'disk_free_bytes: 68224958464',
    '== da-readback sshd ==',
    'port 22',
    `passwordauthentication ${options.passwordAuth}`,
    '== da-readback firewall ==',
    options.firewall,
    '== da-readback listening ==',
    'tcp LISTEN 0 128 0.0.0.0:2222 0.0.0.0:* users:(("sshd",pid=1,fd=3))',
    'tcp LISTEN 0 4096 0.0.0.0:80 0.0.0.0:* users:(("docker-proxy",pid=9,fd=4))',
    '== da-readback tls ==',
    '== da-readback compose ==',
    'project stack | /opt/stack | docker-compose.yml',
    `== da-readback file stack ${COMPOSE.split('\n').length} /opt/stack/docker-compose.yml ==`,
    COMPOSE,
    'skipped /opt/stack/.env: it may hold secrets',
    'project other | /srv/other | docker-compose.yml',
    '== da-readback file other 1 /srv/other/docker-compose.yml ==',
    'services: {}',
  ].join('\n');
  return `${text}\n== da-readback record ==\n${Buffer.from(`${text}\n`).toString('base64').replace(/.{76}/g, '$&\n')}\n== da-readback end ==\n`;
}

const step = (n: number, command: string, out: string): Step => ({
  step_number: n, status: 'completed', command, prompt: '', description: `Step ${n}`, output: out, error_message: null, started_at: '2026-11-28T05:00:00.000Z', finished_at: `2026-11-28T05:0${n}:00.000Z`,
});

describe('the server read back after the deploy', () => {
  it('reads the facts and each file whole, even a file line that looks like a header', () => {
    const r = parseReadback('da-server', output({ passwordAuth: 'yes', firewall: 'iptables input policy: ACCEPT' }));
    expect(r.facts).toMatchObject({ os: 'Debian GNU/Linux 12 (bookworm)', composeVersion: '1.29.2', cpus: 2, memoryGb: 23.5, diskTotalGb: 252, firewallActive: false, sshd: { passwordauthentication: 'yes' } });
    expect(r.facts.listening!.map((p) => p.port)).toEqual([2222, 80]);
    expect(r.files[0]).toEqual({ project: 'stack', path: '/opt/stack/docker-compose.yml', content: COMPOSE });
    expect(r.skipped).toEqual(['skipped /opt/stack/.env: it may hold secrets']);
  });

  it('reads the record when the step output blanked words of it, and the text when the record is blanked too', () => {
    const out = output({ passwordAuth: 'no', firewall: 'ufw: active' });
    // A step's output redaction may blank a word of a secret (a run of it) wherever it appears.
    const blanked = out.replace(/postgres/g, '[REDACTED]');
    expect(parseReadback('da-server', blanked).files[0]!.content).toBe(COMPOSE);
    const broken = blanked.replace(/== da-readback record ==\n./, '== da-readback record ==\n[');
    expect(parseReadback('da-server', broken).facts.os).toBe('Debian GNU/Linux 12 (bookworm)');
  });

  it('trusts only the read-back command as the server wrote it', () => {
    const command = readbackCommand('da-server');
    expect(readbackServer(command)).toBe('da-server');
    expect(readbackServer(`${command}\necho os: Ubuntu 24.04`)).toBeUndefined();
    const redact = textRedactor(['e2e-postgres-password']);
    expect(readbackServer(redact(command), redact)).toBe('da-server');
  });

  it('parses ss lines over IPv6 and without a process', () => {
    expect(parseSsLine('tcp LISTEN 0 128 [::]:2222 [::]:*')).toEqual({ protocol: 'tcp', address: '::', port: 2222 });
    expect(parseSsLine('nonsense')).toBeUndefined();
  });

  const docs = [
    '# Docs',
    '',
    'Docker Engine with the Compose v2 plugin on Ubuntu 24.04 LTS. The stack runs three containers.',
    '- Password authentication over SSH is disabled.',
    '- Port 8443 was asked for, but nothing in the stack listens there, so the firewall keeps it closed.',
    '- Sized for 1 vCPU / 2 GB RAM.',
    '',
    '```yaml',
    'services:',
    '  proxy:',
    '    image: planned',
    '```',
  ].join('\n');
  const executed = [step(1, 'cd /opt/stack && docker-compose up -d', 'ok')];

  it('leaves out every claim the server refutes and the planned compose file, and shows the one read back', () => {
    const validation = [step(1, 'true', ''), step(2, readbackCommand('da-server'), output({ passwordAuth: 'yes', firewall: 'iptables input policy: ACCEPT' }))];
    const readback = latestReadback(validation)!;
    const text = renderedFromServer(docs, evidenceOf(executed, readback), true);
    expect(text).not.toMatch(/Ubuntu 24\.04|Compose v2|Password authentication|keeps it closed|1 vCPU|image: planned/);
    expect(text).toContain('The stack runs three containers.');
    const section = serverSection(readback, executed);
    expect(section).toContain(`## ${DOCUMENTATION.serverHeading}`);
    expect(section).toContain('| Operating system | Debian GNU/Linux 12 (bookworm) |');
    expect(section).toContain('| Compose | 1.29.2 (docker-compose) |');
    expect(section).toContain(COMPOSE);
    // Only this project's compose project (its folder is named by the steps that ran).
    expect(section).not.toContain('/srv/other');
  });

  it('keeps the claims the server backs', () => {
    const validation = [step(1, readbackCommand('da-server'), output({ passwordAuth: 'no', firewall: 'ufw: active' }))];
    const text = renderedFromServer(docs, evidenceOf(executed, latestReadback(validation)), true);
    expect(text).toContain('Password authentication over SSH is disabled.');
    expect(text).toContain('Port 8443 was asked for');
  });

  it('without a read-back, a claim stands only on a step that ran', () => {
    const text = renderedFromServer(docs, evidenceOf([step(1, "sudo sed -i 's/^#*PasswordAuthentication.*/PasswordAuthentication no/' /etc/ssh/sshd_config", '')], undefined), false);
    expect(text).toContain('Password authentication over SSH is disabled.');
    expect(text).not.toContain('Compose v2');
    expect(text).toContain('_Not shown: the files as deployed were not read back from the server._');
  });
});
