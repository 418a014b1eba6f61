import { createSseParser, type SseFrame } from '../../../src/client/api/sseParser';

function parseAll(pieces: readonly string[], end = true): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = createSseParser((frame) => frames.push(frame));
  pieces.forEach((piece) => parser.feed(piece));
  if (end) parser.end();
  return frames;
}

describe('SSE line parser', () => {
  it('dispatches one frame per data line followed by a blank line, without the space after the colon', () => {
    expect(parseAll(['data: {"a":1}\n\ndata:{"b":2}\n\n'])).toEqual([
      { event: 'data', data: '{"a":1}' },
      { event: 'data', data: '{"b":2}' },
    ]);
  });

  it('joins a frame split anywhere across network chunks, CR/LF pairs included', () => {
    const text = 'data: {"event":"on_chat_model_stream","chunk":{"content":"héllo"}}\r\n\r\ndata: {"x":2}\r\n\r\n';
    const oneByOne = parseAll(text.split(''));
    expect(oneByOne).toEqual(parseAll([text]));
    expect(oneByOne).toHaveLength(2);
    expect(JSON.parse(oneByOne[0].data)).toEqual({ event: 'on_chat_model_stream', chunk: { content: 'héllo' } });
  });

  it('treats a lone CR as a line end, even when the LF that could follow comes in the next chunk', () => {
    expect(parseAll(['data: a\r', '\r', 'data: b\r', '\n\r\n'])).toEqual([
      { event: 'data', data: 'a' },
      { event: 'data', data: 'b' },
    ]);
  });

  it('joins several data lines of one frame with newlines and keeps the event name and id', () => {
    expect(parseAll(['event: message\nid: 7\ndata: line 1\ndata: line 2\n\n'])).toEqual([
      { event: 'message', data: 'line 1\nline 2', id: '7' },
    ]);
  });

  it('ignores comments, unknown fields and blank lines without data', () => {
    expect(parseAll([': keep-alive\n\nretry: 1000\nfoo: bar\n\n\n\ndata: x\n\n'])).toEqual([{ event: 'data', data: 'x' }]);
  });

  it('dispatches a last frame whose blank line never came when the body ends', () => {
    expect(parseAll(['data: {"event":"on_chat_model_end"}'], false)).toEqual([]);
    expect(parseAll(['data: {"event":"on_chat_model_end"}'])).toEqual([{ event: 'data', data: '{"event":"on_chat_model_end"}' }]);
  });

  it('resets the event name after each frame', () => {
    expect(parseAll(['event: error\ndata: 1\n\ndata: 2\n\n'])).toEqual([
      { event: 'error', data: '1' },
      { event: 'data', data: '2' },
    ]);
  });
});
