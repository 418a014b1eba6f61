import fs from 'node:fs';

/** Where a value was found on the host's process table: which process, and in which of its files. */
export interface Sighting {
  pid: number;
  file: 'cmdline' | 'environ';
}

/**
 * Every process of the host whose command line (world-readable) or environment (readable by its owner
 * and root) holds `needle`'s bytes, read from /proc as `ps` would. The sandbox's processes are among them
 * for every driver here: bubblewrap's, a container's and the replayed cluster's run on this kernel.
 */
export function processesHolding(needle: Buffer): Sighting[] {
  const found: Sighting[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    for (const file of ['cmdline', 'environ'] as const) {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(`/proc/${entry}/${file}`);
      } catch {
        continue; // gone, or another user's environment
      }
      if (bytes.includes(needle)) found.push({ pid: Number(entry), file });
    }
  }
  return found;
}
