import fs from 'node:fs';

/**
 * The mount points below `dir` in this process's mount table, read from /proc/self/mountinfo's fifth field
 * (the test's own reading, beside the server's): what would make `rm -rf` of a data directory fail with
 * "Device or resource busy". Paths the tests make hold no characters the kernel escapes.
 */
export const mountedBelow = (dir: string): string[] =>
  fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((mountpoint) => mountpoint.startsWith(`${fs.realpathSync(dir)}/`));
