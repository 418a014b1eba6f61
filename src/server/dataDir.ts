import fs from 'node:fs';
import path from 'node:path';

/**
 * Closes what lies under `dir` to its owner: folders 0700, files 0600, symlinks not followed, files of
 * another uid (a sandbox's) left alone. `skip` names folders (relative to `dir`) not to walk into.
 */
export function closeModes(dir: string, skip: (relative: string[]) => boolean = () => false): void {
  const ownUid = process.getuid?.();
  const close = (target: string, stat: fs.Stats): void => {
    // Only what is ours: a file of a sandbox's uid is left to it.
    if (ownUid !== undefined && stat.uid !== ownUid) return;
    const mode = stat.isDirectory() ? 0o700 : 0o600;
    if ((stat.mode & 0o777) !== mode) fs.chmodSync(target, mode);
  };
  const walk = (current: string, depth: string[]): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const target = path.join(current, entry.name);
      if (entry.isSymbolicLink()) continue;
      close(target, fs.lstatSync(target));
      const inside = [...depth, entry.name];
      if (entry.isDirectory() && !skip(inside)) walk(target, inside);
    }
  };
  close(dir, fs.lstatSync(dir));
  walk(dir, []);
}

/**
 * DATA_DIR is the server's alone: the database files (PGlite's are 0666 as it makes them), the secrets
 * key, sessions, backups. Run once at start, before anything is opened: from then on the process makes
 * files 0600 and folders 0700 (umask 077), and what an earlier version or another umask left is closed
 * now. Sandbox workspaces (DATA_DIR/sandboxes/<id>/workspace) are left as their sandbox made them: they
 * belong to the project's own uid when the server runs as root, and nobody else can reach them, the
 * folders above them being 0700. PGlite sets the modes a template's archive records on the files it
 * unpacks, past the umask: the database closes its directory again once open (db/client.ts).
 */
export function secureDataDir(dataDir: string): void {
  process.umask(0o077);
  const root = path.resolve(dataDir);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  closeModes(root, (inside) => inside.length === 3 && inside[0] === 'sandboxes' && inside[2] === 'workspace');
}
