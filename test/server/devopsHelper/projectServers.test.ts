import fc from 'fast-check';
import { composeServices, parseSshConfig, runsOn } from '../../../src/server/services/devopsHelper/projectServers';
import { intentOf, INTENTS } from '../../../src/server/agents/offline/helperIntents';

const servers = parseSshConfig(
  ['# written by step 1', 'Host da-server', '  HostName 203.0.113.7', '  Port 2222', '  User deploy', 'Host *', '  ServerAliveInterval 15', 'Host backup "old box"', '  HostName=10.0.0.5'].join('\n'),
);

describe("the project's servers", () => {
  it('reads concrete Host blocks of an ssh config (wildcards skipped, = and quotes as ssh reads them)', () => {
    expect(servers).toEqual([
      { name: 'da-server', host: '203.0.113.7', user: 'deploy', port: 2222 },
      { name: 'backup', host: '10.0.0.5', user: null, port: 22 },
      { name: 'old box', host: '10.0.0.5', user: null, port: 22 },
    ]);
    expect(composeServices('services:\n  redis: {}\n  web: {}\n')).toEqual(['redis', 'web']);
    expect(composeServices(': not yaml: [')).toEqual([]);
  });

  it.each([
    ["ssh -F ssh-keys/config da-server 'df -h'", 'da-server'],
    ['cd stack && ssh -p 2222 -i key deploy@203.0.113.7 uptime', 'da-server'],
    ['for h in a; do sudo ssh -o BatchMode=yes backup "free -m"; done', 'backup'],
  ])('%s runs on %s', (command, name) => {
    expect(runsOn(command, servers)).toMatchObject({ kind: 'server', name });
  });

  it('a command that calls no ssh runs in the sandbox, whatever its quoted text says', () => {
    expect(runsOn("echo 'ssh da-server'", servers)).toEqual({ kind: 'sandbox' });
    fc.assert(fc.property(fc.string().filter((s) => !s.includes('ssh')), (command) => expect(runsOn(command, servers)).toEqual({ kind: 'sandbox' })));
  });

  it('an unknown destination is named as not configured, never the sandbox', () => {
    expect(runsOn('ssh root@198.51.100.9 uptime', servers)).toEqual({ kind: 'server', name: 'root@198.51.100.9', address: 'root@198.51.100.9 (not in ssh-keys/config)' });
  });

  it('maps the common questions to intents by the words they use', () => {
    expect(intentOf('show me the running containers on my server and their disk usage')?.id).toBe('container-disk');
    expect(intentOf('what are the logs of redis saying?')?.id).toBe('logs');
    expect(intentOf('restart the redis container')?.id).toBe('restart');
    expect(intentOf('update the images please')?.id).toBe('update-images');
    expect(intentOf('when do my certificates expire')?.id).toBe('certificates');
    expect(intentOf('what changed since the deploy')?.id).toBe('changes-since-deploy');
    expect(intentOf('hello there')).toBeUndefined();
    // Every intent is reachable by its own words.
    for (const intent of INTENTS) expect(intentOf(intent.needs.map((g) => g[0]).join(' '))).toBeDefined();
  });
});
