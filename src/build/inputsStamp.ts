import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A content hash of a build's inputs (every file under the given paths, by relative path and bytes,
 * in a fixed order), kept beside the build's output: a build whose inputs hash to the stamp it left
 * has nothing to do. Content, not timestamps: a checkout or a copy that changes no byte changes nothing.
 */
export function inputsHash(paths: readonly string[], root = process.cwd()): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = (at: string): void => {
    const stat = fs.statSync(at, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(at)) walk(path.join(at, name));
    } else if (stat.isFile()) {
      files.push(at);
    }
  };
  for (const p of paths) walk(path.resolve(root, p));
  for (const file of files.map((f) => path.relative(root, f)).sort()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.resolve(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The stamp a finished build left in `stampFile`, or null when there is none. */
export function readStamp(stampFile: string): string | null {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim();
  } catch {
    return null;
  }
}

export function writeStamp(stampFile: string, hash: string): void {
  fs.mkdirSync(path.dirname(stampFile), { recursive: true });
  fs.writeFileSync(stampFile, `${hash}\n`);
}
