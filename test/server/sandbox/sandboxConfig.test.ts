import path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/server/config';

describe('sandbox and terminal configuration', () => {
  it('defaults to the local driver under DATA_DIR/sandboxes with network and limits on', () => {
    const config = loadConfig({ DATA_DIR: '/srv/da' });
    expect(config.sandbox).toEqual({
      driver: 'local',
      root: path.join('/srv/da', 'sandboxes'),
      network: true,
      memoryMb: 8192,
      maxProcesses: 512,
      cpuSeconds: 3600,
      uidBase: 200_000,
      diskMb: 4_096,
      execTimeoutMs: 900_000,
      denyCidrs: [],
      terminalGraceMs: 30_000,
    });
    expect(config.allowedOrigins).toEqual([]);
    expect(config.shutdownTimeoutMs).toBe(10_000);
    expect(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '2.5' }).shutdownTimeoutMs).toBe(2_500);
  });

  it('reads the variables', () => {
    const config = loadConfig({
      SANDBOX_NETWORK: 'false',
      SANDBOX_MEMORY_MB: '0',
      SANDBOX_MAX_PROCESSES: '64',
      SANDBOX_CPU_SECONDS: '60',
      SANDBOX_EXEC_TIMEOUT_SECONDS: '5',
      TERMINAL_RECONNECT_GRACE_SECONDS: '2.5',
      ALLOWED_ORIGINS: ' http://127.0.0.1:3000 , https://ops.example.com/ ',
      SANDBOX_DENY_CIDRS: '10.20.0.0/16, 192.168.1.1,fd00::/8',
    });
    expect(config.sandbox.denyCidrs).toEqual(['10.20.0.0/16', '192.168.1.1', 'fd00::/8']);
    expect(config.sandbox).toMatchObject({ network: false, memoryMb: 0, maxProcesses: 64, cpuSeconds: 60, execTimeoutMs: 5_000, terminalGraceMs: 2_500 });
    expect(config.allowedOrigins).toEqual(['http://127.0.0.1:3000', 'https://ops.example.com']);
  });

  it.each([
    ['SANDBOX_DRIVER', 'podman'],
    ['SANDBOX_NETWORK', 'maybe'],
    ['SANDBOX_MEMORY_MB', '-1'],
    ['SANDBOX_EXEC_TIMEOUT_SECONDS', '0'],
    ['ALLOWED_ORIGINS', 'http://ok.test/path'],
    ['ALLOWED_ORIGINS', '*'],
    ['SHUTDOWN_TIMEOUT_SECONDS', '0'],
    ['SANDBOX_DENY_CIDRS', '10.0.0.0/33'],
    ['SANDBOX_DENY_CIDRS', '10.0.0.0/8,example.com'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
