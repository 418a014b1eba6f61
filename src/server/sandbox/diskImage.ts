import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A workspace of bounded size (SANDBOX_DISK_MB): an ext4 filesystem in an image file beside it (its
 * space reserved on the host's disk), loop-mounted at the workspace folder. A write past the size fails
 * with ENOSPC inside the sandbox, and the host's disk holds no more than the image. Mounting needs root (the server's, as for the per-project
 * uids). The local driver unmounts its workspaces when the server shuts down; the docker driver's stay mounted
 * under the containers that outlive it. Either is mounted again on its next use, after a restart of the server or the host.
 */
export interface BoundedDisks {
  readonly sizeMb: number;
  /** Whether the image of this mount point exists (the workspace exists, mounted or not). */
  exists(mountpoint: string): boolean;
  /** Makes the image (ext4, its root owned by `ownerUid`, mode 0700) and mounts it; the mount point must be missing or empty. */
  create(mountpoint: string, ownerUid: number): void;
  /** Mounts the existing image when it is not mounted (after a restart of the host, or of this server's detach). */
  attach(mountpoint: string): void;
  /** Unmounts, keeping the image. */
  detach(mountpoint: string): void;
  /** Unmounts and deletes the image and the mount point. */
  discard(mountpoint: string): void;
}

const imageOf = (mountpoint: string): string => `${mountpoint}.img`;

/** A mount point is on another device than its parent folder while something is mounted on it. */
export function isMountpoint(dir: string): boolean {
  try {
    return fs.statSync(dir).dev !== fs.statSync(path.dirname(dir)).dev;
  } catch {
    return false;
  }
}

const run = (program: string, args: string[]): void => {
  try {
    execFileSync(program, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`${program} ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
  }
};

/** How often a mount whose loop device could not be set up is tried again, and the pause before each. */
const LOOP_ATTEMPTS = 5;
const LOOP_PAUSE_MS = 200;

const mount = (mountpoint: string): void => {
  for (let attempt = 1; ; attempt++) {
    try {
      // nosuid and nodev: a file the sandbox wrote can never be a setuid program or a device for the host.
      run('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev', imageOf(mountpoint), mountpoint]);
      return;
    } catch (err) {
      // Finding a free loop device and attaching the image are two steps: another process (another
      // sandbox's mount, a server beside this one) can take the device between them, and mount then fails
      // to set up the loop device (EBUSY). Tried again, as image builders do (lorax retries its losetup).
      if (attempt >= LOOP_ATTEMPTS || !/loop device/i.test((err as Error).message) || isMountpoint(mountpoint)) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LOOP_PAUSE_MS * attempt);
    }
  }
};

const unmount = (mountpoint: string): void => {
  if (!isMountpoint(mountpoint)) return;
  try {
    run('umount', [mountpoint]);
  } catch {
    // Still busy (a process of the sandbox on its way out): detached now, freed when the last one ends.
    run('umount', ['--lazy', mountpoint]);
  }
};

export function boundedDisks(sizeMb: number): BoundedDisks {
  return {
    sizeMb,
    exists: (mountpoint) => fs.existsSync(imageOf(mountpoint)),
    create(mountpoint, ownerUid) {
      const image = imageOf(mountpoint);
      fs.rmSync(image, { force: true });
      const fd = fs.openSync(image, 'wx', 0o600);
      try {
        fs.ftruncateSync(fd, sizeMb * 1024 * 1024);
      } finally {
        fs.closeSync(fd);
      }
      try {
        // No blocks reserved for root (the sandbox user gets the whole size); a small journal; inode tables
        // written now, not by the kernel after mounting (its zeroing punches holes into the image's reservation).
        run('mkfs.ext4', ['-q', '-F', '-m', '0', '-J', 'size=4', '-E', `nodiscard,lazy_itable_init=0,lazy_journal_init=0,root_owner=${ownerUid}:${ownerUid}`, image]);
        // Then every block reserved on the host's disk (mkfs leaves holes where it zeroes): a sparse image
        // could promise more than the disk has, and writes the loop device could not place would be lost
        // after the program was told they worked.
        try {
          run('fallocate', ['-l', String(sizeMb * 1024 * 1024), image]);
        } catch (err) {
          throw new Error(`Reserving ${sizeMb} MB for the workspace (SANDBOX_DISK_MB) failed: ${(err as Error).message}`, { cause: err });
        }
        fs.mkdirSync(mountpoint, { recursive: true, mode: 0o700 });
        if (fs.readdirSync(mountpoint).length > 0) throw new Error(`${mountpoint} is not empty`);
        mount(mountpoint);
        fs.rmdirSync(path.join(mountpoint, 'lost+found'));
        fs.chmodSync(mountpoint, 0o700);
      } catch (err) {
        unmount(mountpoint);
        fs.rmSync(mountpoint, { recursive: true, force: true });
        fs.rmSync(image, { force: true });
        throw err;
      }
    },
    attach(mountpoint) {
      if (isMountpoint(mountpoint)) return;
      fs.mkdirSync(mountpoint, { recursive: true, mode: 0o700 });
      mount(mountpoint);
    },
    detach: unmount,
    discard(mountpoint) {
      unmount(mountpoint);
      fs.rmSync(mountpoint, { recursive: true, force: true });
      fs.rmSync(imageOf(mountpoint), { force: true });
    },
  };
}
