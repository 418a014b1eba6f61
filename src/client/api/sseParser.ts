/**
 * A small parser for `text/event-stream` bodies (the WHATWG "event stream interpretation"): lines end
 * with CRLF, LF or CR, `data:` lines accumulate, a blank line dispatches the frame, `:` lines are
 * comments. Fed decoded text in arbitrary pieces, since network chunks split lines (and CRLF pairs)
 * anywhere.
 *
 * @example
 *   const parser = createSseParser((frame) => console.log(frame.event, frame.data));
 *   parser.feed('data: {"event":"on_chat_model_stream",');
 *   parser.feed('"thread_id":"t-1","chunk":{"content":"Hi"}}\n\n'); // → one frame
 *   parser.end();
 */

/** One dispatched frame. `event` is the `event:` field, or 'data' for a frame without one (events.ts). */
export interface SseFrame {
  event: string;
  data: string;
  id?: string;
}

export interface SseParser {
  /** Hands the parser the next piece of decoded text. */
  feed: (text: string) => void;
  /** The body ended: a last frame without its blank line still counts (servers that close right after it). */
  end: () => void;
}

/** The name a frame without an `event:` line gets (the contract of src/shared/events.ts). */
export const DEFAULT_SSE_EVENT = 'data';

export function createSseParser(onFrame: (frame: SseFrame) => void): SseParser {
  let buffer = '';
  /** A CR ended the last piece: a LF starting the next one belongs to it. */
  let skipLeadingLf = false;
  let data: string[] = [];
  let event = '';
  let id: string | undefined;

  const dispatch = (): void => {
    if (data.length > 0) {
      const frame: SseFrame = { event: event || DEFAULT_SSE_EVENT, data: data.join('\n') };
      if (id !== undefined) frame.id = id;
      onFrame(frame);
    }
    data = [];
    event = '';
  };

  const processLine = (line: string): void => {
    if (line === '') {
      dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    // `retry` and unknown fields mean nothing to a fetch reader.
  };

  return {
    feed(text) {
      if (skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
      skipLeadingLf = false;
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i += 1) {
        const char = buffer[i];
        if (char !== '\n' && char !== '\r') continue;
        processLine(buffer.slice(start, i));
        if (char === '\r') {
          if (i + 1 === buffer.length) skipLeadingLf = true;
          else if (buffer[i + 1] === '\n') i += 1;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    end() {
      if (buffer) processLine(buffer);
      buffer = '';
      dispatch();
    },
  };
}

/**
 * Reads an event-stream body frame by frame until it ends or `onFrame` answers true (the stream said all
 * it will); then it lets go of the connection instead of waiting for the server to close it. Answers
 * true when `onFrame` stopped it, false when the body ended first.
 */
export async function readSseBody(body: ReadableStream<Uint8Array>, onFrame: (frame: SseFrame) => boolean | void): Promise<boolean> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let stop = false;
  const parser = createSseParser((frame) => {
    if (!stop && onFrame(frame) === true) stop = true;
  });
  while (!stop) {
    const { done, value } = await reader.read();
    if (done) {
      parser.feed(decoder.decode());
      parser.end();
      return stop;
    }
    parser.feed(decoder.decode(value, { stream: true }));
  }
  reader.cancel().catch(() => undefined);
  return true;
}
