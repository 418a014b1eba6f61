import { PassThrough, Writable, type Readable } from 'node:stream';
import yazl from 'yazl';
import { LEFT_OUT_NOTE_NAME, leftOutNote } from './workspaceLayout';

const BLOCK = 512;

interface Header {
  name: string;
  type: string;
  size: number;
  mode: number;
  mtime: Date;
  linkname: string;
}

const cstring = (buf: Buffer, start: number, length: number): string => {
  const slice = buf.subarray(start, start + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end === -1 ? slice.length : end).toString('utf8');
};

const octal = (buf: Buffer, start: number, length: number): number => {
  // GNU base-256 for large sizes: the first byte has its high bit set.
  if ((buf[start]! & 0x80) !== 0) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + buf[i]!;
    return value;
  }
  const text = cstring(buf, start, length).trim();
  return text ? parseInt(text, 8) : 0;
};

/** Parses pax records `"<len> key=value\n"`. */
const paxRecords = (data: Buffer): Record<string, string> => {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space === -1) break;
    const length = parseInt(data.subarray(i, space).toString('ascii'), 10);
    if (!length) break;
    const record = data.subarray(space + 1, i + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += length;
  }
  return out;
};

/** Entry names as tar gives them (`./a/b`) made relative, never absolute or climbing. */
const cleanName = (name: string): string | null => {
  const parts = name.split('/').filter((p) => p && p !== '.');
  if (parts.some((p) => p === '..')) return null;
  return parts.join('/');
};

/** Files up to this size are read whole and checked for secret values; larger ones (images, archives) are not. */
export const CHECKED_FILE_LIMIT = 4 * 1024 * 1024;

/** Whether a file's content holds a secret value (secretFinder of the project's values). */
export type ContentCheck = (content: string) => boolean;

/** What a zip leaves out of an entry (by its path in the tar): true for a secret file (listed), 'skip' for one outside the download. */
export type EntryFilter = (name: string) => boolean | 'skip';

/**
 * Converts a tar stream (GNU or pax, as `tar -cf -` writes it) into a zip stream with yazl, entry by
 * entry and with backpressure, so a workspace of any size is never held in memory. Regular files,
 * directories and symlinks (stored as zip symlinks, never followed) are kept; other types are skipped.
 * Files and links `leaveOut` answers true for (by their path in the tar) are dropped, their data never
 * read into the zip, and a note listing them (LEFT_OUT_NOTE_NAME) is added instead; entries it answers
 * 'skip' for (folders too) are not part of this download at all, and are not listed.
 */
export function tarToZip(tar: Readable, prefix = '', leaveOut?: EntryFilter, holdsSecret?: ContentCheck): Readable {
  const leftOut: string[] = [];
  const holding: string[] = [];
  // A file being read whole to be checked before it enters the zip (holdsSecret).
  let checked: { full: string; options: { mtime: Date; mode: number }; chunks: Buffer[] } | null = null;
  const zip = new yazl.ZipFile();
  const output = zip.outputStream as unknown as Readable;
  let buffer: Buffer = Buffer.alloc(0);
  let header: Header | null = null;
  let remaining = 0;
  let padding = 0;
  let current: PassThrough | null = null;
  let meta: Buffer[] | null = null; // data of a long-name or pax entry being collected
  let longName: string | null = null;
  let longLink: string | null = null;
  let pax: Record<string, string> = {};
  let ended = false;

  const entryName = (name: string): string => (prefix ? `${prefix}/${name}` : name);

  const startEntry = (h: Header): void => {
    if (h.type === 'L' || h.type === 'K' || h.type === 'x' || h.type === 'g') {
      meta = [];
      return;
    }
    const name = cleanName(longName ?? pax.path ?? h.name);
    const linkname = longLink ?? pax.linkpath ?? h.linkname;
    longName = null;
    longLink = null;
    pax = {};
    if (name === null || (name === '' && !prefix)) return;
    const verdict = name === '' ? false : leaveOut?.(name);
    if (verdict === 'skip') return;
    // Folders stay (empty when all they hold is secret): the layout is not a secret.
    if (verdict && h.type !== '5') {
      leftOut.push(entryName(name));
      return;
    }
    const full = name === '' ? prefix : entryName(name);
    const options = { mtime: h.mtime, mode: h.mode };
    if (h.type === '5') {
      zip.addEmptyDirectory(full, options);
    } else if (h.type === '2') {
      zip.addBuffer(Buffer.from(linkname, 'utf8'), full, { mtime: h.mtime, mode: 0o120000 | (h.mode & 0o777), compress: false });
    } else if ((h.type === '0' || h.type === '\0' || h.type === '' || h.type === '7') && holdsSecret && h.size > 0 && h.size <= CHECKED_FILE_LIMIT) {
      checked = { full, options, chunks: [] };
    } else if (h.type === '0' || h.type === '\0' || h.type === '' || h.type === '7') {
      current = new PassThrough();
      zip.addReadStream(current, full, { ...options, size: h.size });
      if (h.size === 0) {
        current.end();
        current = null;
      }
    }
  };

  const finishEntry = (h: Header): void => {
    if (meta) {
      const data = Buffer.concat(meta);
      meta = null;
      if (h.type === 'L') longName = cstring(data, 0, data.length);
      else if (h.type === 'K') longLink = cstring(data, 0, data.length);
      else if (h.type === 'x') pax = paxRecords(data);
    }
    if (current) {
      current.end();
      current = null;
    }
    if (checked) {
      const data = Buffer.concat(checked.chunks);
      if (holdsSecret?.(data.toString('utf8'))) holding.push(checked.full);
      else zip.addBuffer(data, checked.full, checked.options);
      checked = null;
    }
  };

  /** Feeds data to the current entry; resolves when it may take more. */
  const feed = (data: Buffer): Promise<void> | void => {
    if (meta) {
      meta.push(Buffer.from(data));
      return;
    }
    if (checked) {
      checked.chunks.push(Buffer.from(data));
      return;
    }
    const target = current;
    if (!target) return;
    if (!target.write(data)) return new Promise((resolve) => target.once('drain', resolve));
  };

  const sink = new Writable({
    async write(chunk: Buffer, _encoding, callback) {
      try {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        while (buffer.length > 0 && !ended) {
          if (remaining > 0) {
            const take = Math.min(remaining, buffer.length);
            const piece = buffer.subarray(0, take);
            buffer = buffer.subarray(take);
            remaining -= take;
            const wait = feed(piece);
            if (remaining === 0 && header) {
              if (wait) await wait;
              finishEntry(header);
            } else if (wait) await wait;
            continue;
          }
          if (padding > 0) {
            const take = Math.min(padding, buffer.length);
            buffer = buffer.subarray(take);
            padding -= take;
            continue;
          }
          if (buffer.length < BLOCK) break;
          const block = buffer.subarray(0, BLOCK);
          buffer = buffer.subarray(BLOCK);
          if (block.every((b) => b === 0)) {
            ended = true;
            break;
          }
          const ustarPrefix = block.subarray(257, 262).toString('ascii') === 'ustar' ? cstring(block, 345, 155) : '';
          const base = cstring(block, 0, 100);
          header = {
            name: ustarPrefix ? `${ustarPrefix}/${base}` : base,
            mode: octal(block, 100, 8),
            size: octal(block, 124, 12),
            mtime: new Date(octal(block, 136, 12) * 1000),
            type: String.fromCharCode(block[156]!),
            linkname: cstring(block, 157, 100),
          };
          const hasData = header.type !== '5' && header.type !== '2' && header.type !== '1';
          remaining = hasData ? header.size : 0;
          padding = hasData && header.size % BLOCK ? BLOCK - (header.size % BLOCK) : 0;
          startEntry(header);
          if (remaining === 0) finishEntry(header);
        }
        callback();
      } catch (err) {
        callback(err as Error);
      }
    },
    final(callback) {
      if (current) current.end();
      if (leftOut.length || holding.length) zip.addBuffer(Buffer.from(leftOutNote(leftOut, holding), 'utf8'), entryName(LEFT_OUT_NOTE_NAME), { mtime: new Date(), mode: 0o644 });
      zip.end();
      callback();
    },
  });
  tar.on('error', (err) => output.destroy(err));
  sink.on('error', (err) => output.destroy(err));
  tar.pipe(sink);
  return output;
}
