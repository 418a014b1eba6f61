import fs from 'node:fs';
import path from 'node:path';
import { isDiskFull } from '../../diskFull';
import { HttpError } from '../../errors';

export { isDiskFull };

/** What the person reads when a write failed because the server's disk is full. */
export const diskFullDetail = (dataDir: string): string =>
  `The server's disk is full: there is no free space on the disk that holds its data directory (${dataDir}). Free some space there (or give it a larger disk), then try again.`;

/** What readiness says while the free space is below the threshold. */
export const lowDiskDetail = (dataDir: string, freeBytes: number, minFreeBytes: number): string =>
  `The server's disk is nearly full: ${(freeBytes / 1024 / 1024).toFixed(1)} MB free space on the disk that holds its data directory (${dataDir}), below the ${(minFreeBytes / 1024 / 1024).toFixed(0)} MB it needs (DISK_MIN_FREE_MB).`;

export interface DiskSpaceOptions {
  /** DATA_DIR: the database (PGlite), the sandboxes' workspaces and their backups. */
  dataDir: string;
  /** Below this many free bytes the server answers not ready. */
  minFreeBytes: number;
}

/**
 * The data directory's disk, as readiness and the error answers see it. A write that hit ENOSPC
 * anywhere (`noteFull`) makes the server not ready until a probe write in the data directory
 * succeeds again; below `minFreeBytes` free it is not ready either.
 *
 * @example
 *   const disk = createDiskSpace({ dataDir: '/var/lib/devops-agents', minFreeBytes: 64 << 20 });
 *   if (isDiskFull(err)) throw disk.fullError();     // 507 { detail: "The server's disk is full: …" }
 *   await disk.problem();                             // null, or what readiness answers with 503
 */
export function createDiskSpace({ dataDir, minFreeBytes }: DiskSpaceOptions) {
  let fullSince: number | null = null;

  /** DATA_DIR, or the nearest folder above it that exists yet (its disk is the one DATA_DIR will be on). */
  const existing = (): string => {
    let dir = dataDir;
    while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    return dir;
  };

  /** Writes and removes a small file: succeeds once space is back. */
  async function probeWrite(): Promise<boolean> {
    const probe = path.join(existing(), `.disk-probe-${process.pid}`);
    try {
      await fs.promises.writeFile(probe, Buffer.alloc(64 * 1024), { mode: 0o600 });
      return true;
    } catch {
      return false;
    } finally {
      await fs.promises.rm(probe, { force: true });
    }
  }

  return {
    /** A write somewhere failed for want of space: not ready until a probe write succeeds. */
    noteFull(): void {
      fullSince ??= Date.now();
    },

    /** The 507 answered for a write that failed for want of space (and noted). */
    fullError(): HttpError {
      this.noteFull();
      return new HttpError(507, diskFullDetail(dataDir));
    },

    /** The plain-words message of a failure, when it is a full disk (and noted); null otherwise. */
    explain(err: unknown): string | null {
      if (!isDiskFull(err)) return null;
      this.noteFull();
      return diskFullDetail(dataDir);
    },

    /** Why the server is not ready for want of disk space, or null when it is. */
    async problem(): Promise<string | null> {
      if (fullSince !== null) {
        if (!(await probeWrite())) return diskFullDetail(dataDir);
        fullSince = null;
      }
      const stats = await fs.promises.statfs(existing());
      const free = stats.bavail * stats.bsize;
      return free < minFreeBytes ? lowDiskDetail(dataDir, free, minFreeBytes) : null;
    },
  };
}

export type DiskSpace = ReturnType<typeof createDiskSpace>;
