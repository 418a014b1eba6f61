import fs from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;

/** What a backup archive holds, read back from the file itself. */
export interface ArchiveListing {
  /** Files, folders and links in it, the archive's own root folder (`./`) not counted. */
  entries: number;
  /** Bytes of file data. */
  bytes: number;
}

const octal = (block: Buffer, start: number, length: number): number => {
  // GNU base-256 for large sizes: the first byte has its high bit set.
  if ((block[start]! & 0x80) !== 0) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const text = block.subarray(start, start + length).toString('latin1').replace(/\0.*$/s, '').trim();
  return text ? parseInt(text, 8) : NaN;
};

/** The header checksum: the sum of its bytes with the checksum field itself read as spaces. */
const checksumHolds = (block: Buffer): boolean => {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === octal(block, 148, 8);
};

/** Header types whose data describes the next entry (GNU long names, pax), not an entry of their own. */
const META_TYPES = new Set(['L', 'K', 'x', 'g']);

/**
 * Reads a tar.gz through to its end and lists it: the gzip stream must end whole (its trailer and CRC),
 * every header's checksum must hold, every entry's data must be there, and the archive must close with
 * tar's end-of-archive block. A file that fails any of these is no backup — an empty file, one cut short
 * by a killed tar or a full disk, or the output of an archiver that never ran — and throws.
 */
export async function listArchive(file: string): Promise<ArchiveListing> {
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0; // data bytes (padded to blocks) of the current entry still to pass
  let ended = false;
  let entries = 0;
  let bytes = 0;
  let nextIsMeta = false;
  const reader = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      try {
        while (!ended) {
          if (skip > 0) {
            const passed = Math.min(skip, pending.length - at);
            skip -= passed;
            at += passed;
            if (skip > 0) break;
            continue;
          }
          if (pending.length - at < BLOCK) break;
          const block = pending.subarray(at, at + BLOCK);
          at += BLOCK;
          if (block.every((b) => b === 0)) {
            ended = true;
            break;
          }
          if (!checksumHolds(block)) throw new Error('a header of the archive is damaged');
          const size = octal(block, 124, 12);
          if (!Number.isFinite(size) || size < 0) throw new Error('a header of the archive has no size');
          const type = String.fromCharCode(block[156]! || 0x30);
          const name = block.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
          const meta = META_TYPES.has(type);
          // The archive's own root folder is no content (an entry after a long-name header is never it).
          if (!meta && (nextIsMeta || (name !== './' && name !== '.'))) entries++;
          nextIsMeta = meta;
          // Links and folders carry no data whatever their size field says.
          const hasData = type === '0' || type === '7' || meta || type === 'S';
          if (hasData) {
            if (!meta) bytes += size;
            skip = Math.ceil(size / BLOCK) * BLOCK;
          }
        }
        pending = pending.subarray(at);
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
  try {
    await pipeline(fs.createReadStream(file), createGunzip(), reader);
  } catch (err) {
    throw new Error(`the archive is not whole: ${(err as Error).message}`);
  }
  if (!ended || skip > 0) throw new Error('the archive is not whole: it ends before its end-of-archive block');
  return { entries, bytes };
}
