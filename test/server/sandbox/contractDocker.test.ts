import { describeWithEngine, engineDrivers } from './dockerEngine';
import { driverContract } from './driverContract';

jest.setTimeout(180_000);

describeWithEngine('docker driver on the real engine', () => {
  const engine = engineDrivers();
  driverContract(
    'docker driver',
    () => {
      const driver = engine.driver({ pidsLimit: 128, memoryMb: 512 });
      return { driver, root: driver.root, forkBomb: true };
    },
    () => engine.cleanUp(),
    60,
  );
});
