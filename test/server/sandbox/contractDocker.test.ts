import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describeWithEngine, engineDrivers } from './dockerEngine';
import { driverContract } from './driverContract';

jest.setTimeout(180_000);

describeWithEngine('docker driver on the real engine', () => {
  const engine = engineDrivers();
  afterAll(() => engine.cleanUp());
  driverContract(
    'docker driver',
    () => {
      const driver = engine.driver({ pidsLimit: 128, memoryMb: 512 });
      return { driver, root: driver.root, forkBomb: true };
    },
    async () => undefined,
    60,
  );

  it("keeps the sandbox's firewall and ~/.ssh when a stop ended its processes (a new container start) and its backup then failed", async () => {
    const driver = engine.driver({ network: true });
    const s = { projectId: 70, username: 'user_9_70' };
    await driver.initialise(s);
    const host = http.createServer((_req, res) => res.end('host'));
    await new Promise<void>((resolve) => host.listen(0, '0.0.0.0', resolve));
    try {
      const info = await engine.docker.getContainer(`devops-agents-test-${driver.instanceId}-70`).inspect();
      const gateway = Object.values(info.NetworkSettings.Networks)[0]!.Gateway;
      const url = `http://${gateway}:${(host.address() as AddressInfo).port}/`;
      const dir = path.join(driver.root, '70', 'backups');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.writeFileSync(dir, '');
      await expect(driver.stop(s)).rejects.toMatchObject({ code: 'backup_failed' });
      expect(await driver.status(s)).toBe('Running');
      const probe = await driver.exec(s, `curl -s --max-time 5 ${url} || echo refused; readlink ~/.ssh`);
      expect(probe.output).not.toContain('host');
      expect(probe.output).toContain('refused');
      expect(probe.output).toContain('/workspace/ssh-keys');
      fs.rmSync(dir);
      expect(await driver.stop(s)).not.toBeNull();
    } finally {
      host.close();
    }
  });
});
