import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { claimUidSlot } from '../../../src/server/sandbox/local/uidSlots';

jest.setTimeout(60_000);

/** Claims a slot in a process of its own (as a server instance would at its start); answers the slot. */
function claimElsewhere(registry: string, owner: string): Promise<number> {
  const script = `import { claimUidSlot } from './src/server/sandbox/local/uidSlots.ts'; process.stdout.write(String(claimUidSlot(${JSON.stringify(registry)}, ${JSON.stringify(owner)}, 200000)));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`claim exited ${code}`))));
  });
}

describe('uid slots of server instances on one host', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-uid-slots-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives instances starting at once slots of their own (the claim is made under a lock)', async () => {
    const registry = path.join(dir, 'registry');
    const owners = [1, 2, 3, 4, 5, 6].map((n) => path.join(dir, `instance-${n}`, 'sandboxes'));
    const slots = await Promise.all(owners.map((owner) => claimElsewhere(registry, owner)));
    expect(new Set(slots).size).toBe(owners.length);
    expect([...slots].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('keeps an instance its slot across restarts, and frees the slot of an instance whose data is gone', () => {
    const registry = path.join(dir, 'registry');
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    expect(claimUidSlot(registry, a, 200_000)).toBe(0);
    expect(claimUidSlot(registry, b, 200_000)).toBe(1);
    expect(claimUidSlot(registry, a, 200_000)).toBe(0);
    fs.rmSync(a, { recursive: true });
    expect(claimUidSlot(registry, path.join(dir, 'c'), 200_000)).toBe(0);
    // Its registry lost (a new host), an instance asks for the slot it had, recorded beside its sandboxes.
    fs.rmSync(registry, { recursive: true });
    expect(claimUidSlot(registry, b, 200_000)).toBe(1);
  });
});
