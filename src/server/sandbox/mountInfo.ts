import fs from 'node:fs';
import path from 'node:path';

/**
 * The mount points of this process's mount namespace at or below `dir`, read from /proc/self/mountinfo
 * (proc(5): the fifth field is the mount point, with space, tab, newline and backslash written as octal
 * escapes). Answers [] where there is no mountinfo (not Linux).
 */
export function mountsUnder(dir: string, mountinfo = '/proc/self/mountinfo'): string[] {
  let text: string;
  try {
    text = fs.readFileSync(mountinfo, 'utf8');
  } catch {
    return [];
  }
  const inside = path.resolve(dir);
  return text
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((field): field is string => Boolean(field))
    .map((field) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((mountpoint) => mountpoint === inside || mountpoint.startsWith(`${inside}/`));
}
