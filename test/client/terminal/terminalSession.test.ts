import { waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { buffers, channel, runSaga, type Task } from 'redux-saga';
import { TERMINAL_WATERMARKS } from '../../../src/client/common/terminal/flowControl';
import { parseCommandFrame } from '../../../src/client/common/channels/terminalCommandsChannel';
import { terminalIdOfThisTab } from '../../../src/client/common/terminal/terminalChannel';
import { terminalConnection, terminalSession, type TerminalConnectionStatus, type TerminalSink, type TerminalSize } from '../../../src/client/common/terminal/terminalSaga';
import { INSTALLATION_ID_KEY, TERMINAL, TERMINAL_ID_PATTERN } from '../../../src/shared/constants';
import { createMockSocketServer, type MockSocketServer } from '../utils/mockSocket';
import { api, server } from '../utils/server';

const PROJECT = 7;
const URL_ = `ws://localhost/api/sandboxes/${PROJECT}/ws`;

/** A stand-in for xterm: records what is written; write callbacks run when the test says so. */
class FakeTerminal implements TerminalSink {
  written: string[] = [];
  /** When each write came (performance.now()), beside `written`. */
  writtenAt: number[] = [];
  lines: string[] = [];
  callbacks: Array<() => void> = [];
  dataListeners = new Set<(data: string) => void>();
  resizeListeners = new Set<(size: TerminalSize) => void>();
  constructor(public dims: TerminalSize = { rows: 24, cols: 80 }) {}
  write(data: string, callback?: () => void): void {
    this.written.push(data);
    this.writtenAt.push(performance.now());
    if (callback) this.callbacks.push(callback);
  }
  writeln(line: string): void {
    this.lines.push(line);
  }
  size(): TerminalSize {
    return this.dims;
  }
  onData(listener: (data: string) => void): { dispose(): void } {
    this.dataListeners.add(listener);
    return { dispose: () => this.dataListeners.delete(listener) };
  }
  onResize(listener: (size: TerminalSize) => void): { dispose(): void } {
    this.resizeListeners.add(listener);
    return { dispose: () => this.resizeListeners.delete(listener) };
  }
  type(data: string): void {
    this.dataListeners.forEach((listener) => listener(data));
  }
  resize(size: TerminalSize): void {
    this.dims = size;
    this.resizeListeners.forEach((listener) => listener(size));
  }
  parsed(): void {
    this.callbacks.splice(0).forEach((callback) => callback());
  }
  text(): string {
    return this.lines.join('\n');
  }
}

/** GET /api/terminal/commands: the frames given, then the stream stays open (or closes when `end`). */
function serveCommands(frames: string[], end = false): void {
  server.use(
    http.get(api('/terminal/commands'), ({ request }) => {
      const encoder = new TextEncoder();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const frame of frames) controller.enqueue(encoder.encode(`${frame}\n\n`));
          if (end) controller.close();
          request.signal.addEventListener('abort', () => {
            try {
              controller.close();
            } catch {
              // Already closed.
            }
          });
        },
      });
      return new HttpResponse(stream, { headers: { 'Content-Type': 'text/event-stream' } });
    }),
  );
}

let mock: MockSocketServer;
let task: Task | null = null;

function start(terminal: FakeTerminal): Task {
  task = runSaga({}, terminalSession, PROJECT, terminal);
  return task;
}

beforeEach(() => {
  sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  mock = createMockSocketServer(URL_);
});

afterEach(() => {
  if (task?.isRunning()) task.cancel();
  task = null;
});

describe('terminal session over the sandbox socket (mock-socket)', () => {
  it('prints the connected banner and sends the size on open, clamped to 2 columns × 1 row', async () => {
    serveCommands([]);
    const terminal = new FakeTerminal({ rows: 0, cols: 1 });
    start(terminal);
    expect(await mock.nextMessage()).toEqual({ type: 'resize', rows: 1, cols: 2 });
    expect(terminal.text()).toContain(TERMINAL.connectedBanner);
  });

  it('sends keystrokes as input and new sizes as resize', async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    start(terminal);
    expect(await mock.nextMessage()).toEqual({ type: 'resize', rows: 24, cols: 80 });

    let next = mock.nextMessage();
    terminal.type('ls -la\r');
    expect(await next).toEqual({ type: 'input', input: 'ls -la\r' });

    next = mock.nextMessage();
    terminal.resize({ rows: 40, cols: 120 });
    expect(await next).toEqual({ type: 'resize', rows: 40, cols: 120 });
  });

  it('writes output frames to the terminal and skips anything else', async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    start(terminal);
    await mock.nextMessage();
    mock.send({ type: 'output', data: 'README.md\r\n' });
    mock.send({ type: 'unknown', data: 'x' });
    mock.send('not json');
    mock.send({ type: 'output', data: '$ ' });
    await waitFor(() => expect(terminal.written).toEqual(['README.md\r\n', '$ ']));
  });

  it('pauses the server above the high watermark and resumes below the low one', async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    start(terminal);
    await mock.nextMessage();
    const chunk = 'y\n'.repeat(32 * 1024);
    const count = Math.ceil(TERMINAL_WATERMARKS.high / chunk.length) + 1;
    const pause = mock.nextMessage();
    for (let i = 0; i < count; i += 1) mock.send({ type: 'output', data: chunk });
    expect(await pause).toEqual({ type: 'pause' });
    await waitFor(() => expect(terminal.written).toHaveLength(count));
    expect(mock.received.filter((m) => (m as { type: string }).type === 'pause')).toHaveLength(1);

    const resume = mock.nextMessage();
    terminal.parsed();
    expect(await resume).toEqual({ type: 'resume' });
  });

  it("prints 'Connection closed' when the server closes, and the session ends", async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    const running = start(terminal);
    await mock.nextMessage();
    mock.close(1000);
    await running.toPromise();
    expect(terminal.text()).toContain(TERMINAL.connectionClosed);
    expect(terminal.dataListeners.size).toBe(0);
  });

  it("prints 'Connection error. Please try again.' on a socket error", async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    start(terminal);
    await mock.nextMessage();
    mock.server.simulate('error');
    await waitFor(() => expect(terminal.text()).toContain(TERMINAL.connectionError));
  });

  it('closes the socket and releases the listeners when cancelled', async () => {
    serveCommands([]);
    const terminal = new FakeTerminal();
    const running = start(terminal);
    const client = await mock.connection();
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    running.cancel();
    await closed;
    expect(terminal.dataListeners.size).toBe(0);
    expect(terminal.resizeListeners.size).toBe(0);
  });
});

describe("the agent's commands shown in the terminal, never run in its shell", () => {
  it('shows each command character by character at typing_speed, its output and its end; the shell receives none of it', async () => {
    serveCommands([
      'data: {"command":"ls","typing_speed":5,"step_number":3}',
      'data: {"step_number":3,"output":"a.txt\\nb.txt\\n"}',
      'data: {"step_number":3,"status":"completed","error_message":null}',
      'data: {"command":"exit 1","simulate_typing":false,"step_number":4}',
      'data: {"step_number":4,"status":"failed","error_message":"The command exited with code 1."}',
    ]);
    const terminal = new FakeTerminal();
    start(terminal);
    await waitFor(() => expect(terminal.text()).toContain('[step 4 failed: The command exited with code 1.]'));
    const shown = terminal.written.join('');
    expect(shown).toContain('[agent step 3]$');
    expect(terminal.written).toEqual(expect.arrayContaining(['l', 's', 'a.txt\r\nb.txt\r\n', 'exit 1']));
    expect(terminal.text()).toContain('[step 3 completed]');
    // Only the size went to the socket: the commands already ran on the server and must not run again.
    expect(mock.received).toEqual([{ type: 'resize', rows: 24, cols: 80 }]);
  });

  it('uses the default typing speed of 50 ms per character', async () => {
    serveCommands(['data: {"command":"ab"}']);
    const terminal = new FakeTerminal();
    start(terminal);
    await waitFor(() => expect(terminal.written).toContain('b'));
    // A lower bound on the gap between the keys: a busy machine only makes it longer.
    const at = (key: string): number => terminal.writtenAt[terminal.written.indexOf(key)]!;
    expect(at('b') - at('a')).toBeGreaterThanOrEqual(TERMINAL.defaultTypingSpeed - 2);
  });

  it("prints '❌ Error executing command' for a failed command event", async () => {
    serveCommands(['event: error\ndata: {"detail":"docker: command not found"}', 'data: {"error":"exit 127"}']);
    const terminal = new FakeTerminal();
    start(terminal);
    await waitFor(() => expect(terminal.lines.filter((line) => line.includes(TERMINAL.commandError))).toHaveLength(2));
  });

  it('reads command frames strictly', () => {
    expect(parseCommandFrame('{"command":"ls","simulate_typing":true,"typing_speed":20}')).toEqual({
      type: 'terminalCommands/command',
      command: { command: 'ls', simulate_typing: true, typing_speed: 20 },
    });
    expect(parseCommandFrame('{"step_number":2,"output":"x"}')).toEqual({ type: 'terminalCommands/output', output: { step_number: 2, output: 'x' } });
    expect(parseCommandFrame('{"step_number":2,"status":"failed","error_message":"boom"}')).toEqual({
      type: 'terminalCommands/ended',
      end: { step_number: 2, status: 'failed', error_message: 'boom' },
    });
    expect(parseCommandFrame('{"step_number":2,"status":"odd"}').type).toBe('terminalCommands/failed');
    expect(parseCommandFrame('{"release":{"number":2,"status":"live"}}')).toEqual({ type: 'terminalCommands/release', release: { number: 2, status: 'live' } });
    expect(parseCommandFrame('{"release":{"number":"2","status":"live"}}').type).toBe('terminalCommands/failed');
    expect(parseCommandFrame('{"detail":"boom"}')).toEqual({ type: 'terminalCommands/failed', message: 'boom' });
    expect(parseCommandFrame('nope').type).toBe('terminalCommands/failed');
  });
});

describe('several terminals and the reconnect control', () => {
  it("opens this tab's terminal by its id, says why the server closed it, and reconnects into it when asked", async () => {
    serveCommands([]);
    // mock-socket routes by path (the query is not part of its match): the beforeEach server answers.
    const tab = mock;
    const terminal = new FakeTerminal();
    const statuses: TerminalConnectionStatus[] = [];
    const reconnects = channel<true>(buffers.sliding(1));
    task = runSaga({}, terminalConnection, PROJECT, terminal, { terminalId: 'tab-1', onStatus: (s: TerminalConnectionStatus) => statuses.push(s), reconnects });
    await tab.nextMessage();
    expect(statuses).toEqual(['connected']);
    const client = await tab.connection();
    expect(client.url).toBe(`${URL_}?terminal=tab-1`);
    client.close({ code: 4003, reason: TERMINAL.tooManySessions, wasClean: true });
    await waitFor(() => expect(statuses).toEqual(['connected', 'closed']));
    expect(terminal.text()).toContain(`${TERMINAL.connectionClosed}: ${TERMINAL.tooManySessions}`);
    expect(terminal.dataListeners.size).toBe(0);

    const again = tab.nextMessage();
    reconnects.put(true);
    expect(await again).toEqual({ type: 'resize', rows: 24, cols: 80 });
    await waitFor(() => expect(statuses).toEqual(['connected', 'closed', 'connecting', 'connected']));
    terminal.type('ls\r');
    await waitFor(() => expect(tab.received).toContainEqual({ type: 'input', input: 'ls\r' }));
    expect((await tab.connection()).url).toBe(`${URL_}?terminal=tab-1`);
  });

  it('a terminal id is kept per browser tab (session storage) and is one the server accepts', () => {
    sessionStorage.clear();
    const id = terminalIdOfThisTab();
    expect(id).toMatch(new RegExp(TERMINAL_ID_PATTERN));
    expect(terminalIdOfThisTab()).toBe(id);
    sessionStorage.setItem('terminal-id', 'not valid!');
    expect(terminalIdOfThisTab()).not.toBe('not valid!');
  });
});
