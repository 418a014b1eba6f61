import { StringDecoder } from 'node:string_decoder';

/**
 * Splits Docker's multiplexed attach stream (a non-tty exec) into stdout and stderr. Each frame is an
 * 8-byte header — stream type (1 stdout, 2 stderr), three zero bytes, the payload length as a big-endian
 * uint32 — then the payload. A header or a UTF-8 character split across chunks is held until complete.
 *
 * @example
 *   // 01 00 00 00 00 00 00 03 'h' 'i' '\n'  →  onText('hi\n', 'stdout')
 */
export function createDemuxer(onText: (text: string, stream: 'stdout' | 'stderr') => void): {
  push(chunk: Buffer): void;
  end(): void;
} {
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  let buffer: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (buffer.length >= 8) {
        const size = buffer.readUInt32BE(4);
        if (buffer.length < 8 + size) break;
        const stream = buffer[0] === 2 ? 'stderr' : 'stdout';
        const text = decoders[stream].write(buffer.subarray(8, 8 + size));
        buffer = buffer.subarray(8 + size);
        if (text) onText(text, stream);
      }
    },
    end() {
      for (const stream of ['stdout', 'stderr'] as const) {
        const rest = decoders[stream].end();
        if (rest) onText(rest, stream);
      }
    },
  };
}
