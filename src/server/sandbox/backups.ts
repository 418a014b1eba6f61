import fs from 'node:fs';
import path from 'node:path';
import { SandboxError, type BackupResult, type SandboxRef } from './driver';

/**
 * The workspace archives every driver keeps on the server, in `<dir of the project>/backup-<ms>.tar.gz`
 * (the time of the backup in the name). The newest is what a start restores; older ones beyond `keep`
 * are removed after each successful backup.
 */
export interface BackupStore {
  /** Full paths, newest first. */
  list(sandbox: SandboxRef): string[];
  /** The newest archive's path, or null. */
  latest(sandbox: SandboxRef): string | null;
  /** Time of the newest archive, or null. */
  lastTime(sandbox: SandboxRef): Promise<Date | null>;
  /**
   * Writes a new archive through `write` (which fills the path it is given with a tar.gz and checks it)
   * and keeps it only when `write` succeeds: a failed or half-written backup never replaces a good one.
   */
  save(sandbox: SandboxRef, write: (partialFile: string) => Promise<void>): Promise<BackupResult>;
}

const NAME = /^backup-(\d+)\.tar\.gz$/;

const syncPath = (p: string): void => {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
};

export function createBackupStore(dirOf: (sandbox: SandboxRef) => string, keep = 3): BackupStore {
  const list = (s: SandboxRef): string[] => {
    let names: string[];
    try {
      names = fs.readdirSync(dirOf(s));
    } catch {
      return [];
    }
    return names
      .filter((f) => NAME.test(f))
      .sort((a, b) => Number(NAME.exec(b)![1]) - Number(NAME.exec(a)![1]))
      .map((f) => path.join(dirOf(s), f));
  };
  const latest = (s: SandboxRef): string | null => list(s)[0] ?? null;

  return {
    list,
    latest,
    async lastTime(s) {
      const file = latest(s);
      return file ? new Date(Number(NAME.exec(path.basename(file))![1])) : null;
    },
    async save(s, write) {
      const at = new Date();
      fs.mkdirSync(dirOf(s), { recursive: true, mode: 0o700 });
      // A partial file left by a server killed mid-backup is never a backup: cleared before the next one.
      for (const name of fs.readdirSync(dirOf(s))) if (name.endsWith('.partial')) fs.rmSync(path.join(dirOf(s), name), { force: true });
      const file = path.join(dirOf(s), `backup-${at.getTime()}.tar.gz`);
      const partial = `${file}.partial`;
      try {
        await write(partial);
        // On disk before it is named a backup, and the name on disk before older backups are removed.
        syncPath(partial);
        fs.renameSync(partial, file);
        syncPath(dirOf(s));
      } catch (err) {
        fs.rmSync(partial, { force: true });
        throw err instanceof SandboxError ? err : new SandboxError('failed', (err as Error).message);
      }
      for (const old of list(s).slice(keep)) fs.rmSync(old, { force: true });
      return { lastSyncTime: at };
    },
  };
}
