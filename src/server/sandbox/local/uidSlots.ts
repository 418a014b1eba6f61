import fs from 'node:fs';
import path from 'node:path';

/** Host uids of one server instance's sandboxes: project ids below this. */
export const UID_SLOT_SPAN = 1_000_000;
/** Highest host uid handed out (tools treat uids above 2^31 - 1 as negative). */
const MAX_UID = 2 ** 31 - 2;
/** Where the instances on one host record their slots, unless told otherwise. */
export const DEFAULT_UID_REGISTRY = '/var/lib/devops-agents/sandbox-uids';
/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 30_000;

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** Runs `task` holding the registry's lock (a file made with O_EXCL), so two instances never claim at once. */
function withLock<T>(registry: string, task: () => T): T {
  const lock = path.join(registry, '.lock');
  const deadline = Date.now() + 2 * STALE_LOCK_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
      } catch {
        // removed meanwhile
      }
      if (Date.now() > deadline) throw new Error(`The sandbox uid registry ${registry} stays locked (${lock})`);
      sleep(20);
    }
  }
  try {
    return task();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/**
 * The slot of host uids this server instance owns: `uidBase + slot * UID_SLOT_SPAN + projectId`. Every
 * instance on a host records its slot under `registry` (a file per slot naming the instance's sandbox
 * folder), so two instances never run sandboxes as the same uid — the process limit (RLIMIT_NPROC) counts
 * per uid, and one instance's fork bomb would take the other's slots. The same folder gets the same slot
 * after a restart; a slot whose folder no longer exists is free again.
 */
export function claimUidSlot(registry: string, owner: string, uidBase: number): number {
  fs.mkdirSync(registry, { recursive: true, mode: 0o700 });
  fs.mkdirSync(owner, { recursive: true, mode: 0o700 });
  const me = fs.realpathSync(owner);
  const slots = Math.floor((MAX_UID - uidBase) / UID_SLOT_SPAN);
  return withLock(registry, () => {
    const ownerOf = (slot: number): string | null => {
      try {
        return fs.readFileSync(path.join(registry, `slot-${slot}`), 'utf8');
      } catch {
        return null;
      }
    };
    for (let slot = 0; slot < slots; slot++) if (ownerOf(slot) === me) return slot;
    const free = (slot: number): boolean => {
      const holder = ownerOf(slot);
      return holder === null || !fs.existsSync(holder);
    };
    const take = (slot: number): number => {
      fs.writeFileSync(path.join(registry, `slot-${slot}`), me, { mode: 0o600 });
      // Kept beside the workspaces too: their files' owners stay right if the registry is lost (a new host).
      fs.writeFileSync(path.join(me, '.uid-slot'), String(slot), { mode: 0o600 });
      return slot;
    };
    const recorded = Number(fs.existsSync(path.join(me, '.uid-slot')) ? fs.readFileSync(path.join(me, '.uid-slot'), 'utf8') : NaN);
    if (Number.isInteger(recorded) && recorded >= 0 && recorded < slots && free(recorded)) return take(recorded);
    for (let slot = 0; slot < slots; slot++) if (free(slot)) return take(slot);
    throw new Error(`Every sandbox uid slot above SANDBOX_UID_BASE=${uidBase} is taken (${registry})`);
  });
}
