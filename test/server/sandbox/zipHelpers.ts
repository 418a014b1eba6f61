import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface ZipEntryInfo {
  /** File contents (or a symlink's target); empty for directories. */
  data: Buffer;
  /** Unix mode from the external attributes (0o120000 bits for symlinks). */
  mode: number;
}

export async function streamToBuffer(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Reads every entry of a zip with yauzl. */
export async function readZip(buffer: Buffer): Promise<Map<string, ZipEntryInfo>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z!))),
  );
  const entries = new Map<string, ZipEntryInfo>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
      if (entry.fileName.endsWith('/')) {
        entries.set(entry.fileName, { data: Buffer.alloc(0), mode });
        zip.readEntry();
        return;
      }
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        streamToBuffer(stream!).then((data) => {
          entries.set(entry.fileName, { data, mode });
          zip.readEntry();
        }, reject);
      });
    });
    zip.readEntry();
  });
  return entries;
}
