import type { EventChannel } from 'redux-saga';
import { END } from 'redux-saga';
import { call, put, take } from 'redux-saga/effects';
import { createSocketChannel, webSocketUrl, type SocketEvent } from '../../../src/client/common/channels/socketChannel';
import { createMockSocketServer } from '../utils/mockSocket';
import { expectSaga } from '../utils/sagaHelpers';

interface Output {
  type: 'output';
  data: string;
}

function nextEvent<T>(channel: EventChannel<SocketEvent<T>>): Promise<SocketEvent<T> | typeof END> {
  return new Promise((resolve) => channel.take(resolve));
}

describe('socket channel with the mock-socket helper (smoke test)', () => {
  const url = webSocketUrl('/api/sandboxes/7/ws', { protocol: 'http:', host: 'localhost' });

  it('builds ws URLs from the page location', () => {
    expect(url).toBe('ws://localhost/api/sandboxes/7/ws');
    expect(webSocketUrl('/x', { protocol: 'https:', host: 'example.com' })).toBe('wss://example.com/x');
  });

  it('opens, sends, receives typed messages, and ends when the server closes', async () => {
    const mock = createMockSocketServer(url);
    const { events, send } = createSocketChannel<Output, { type: 'input'; input: string }>(url);

    expect(await nextEvent(events)).toEqual({ type: 'socket/opened' });
    await mock.connection();
    const message = mock.nextMessage();
    expect(send({ type: 'input', input: 'ls\r' })).toBe(true);
    expect(await message).toEqual({ type: 'input', input: 'ls\r' });
    expect(mock.received).toEqual([{ type: 'input', input: 'ls\r' }]);

    mock.send({ type: 'output', data: 'README.md\r\n' });
    mock.send('not json');
    expect(await nextEvent(events)).toEqual({ type: 'socket/message', payload: { type: 'output', data: 'README.md\r\n' } });

    mock.close(1000);
    expect(await nextEvent(events)).toMatchObject({ type: 'socket/closed', code: 1000 });
    expect(await nextEvent(events)).toBe(END);
  });

  it('closes the socket when the channel is closed', async () => {
    const mock = createMockSocketServer(url);
    const { events, send } = createSocketChannel<Output>(url);
    const client = await mock.connection();
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    events.close();
    await closed;
    expect(send({})).toBe(false);
  });

  it('feeds a saga through take(), as feature sagas will use it', async () => {
    const mock = createMockSocketServer(url);
    function* relay(): Generator {
      const { events } = createSocketChannel<Output>(url);
      yield take(events); // socket/opened
      const message = (yield take(events)) as SocketEvent<Output>;
      if (message.type === 'socket/message') yield put({ type: 'terminal/outputReceived', payload: message.payload.data });
      yield call([events, events.close]);
    }
    const running = expectSaga(relay).put({ type: 'terminal/outputReceived', payload: 'hello' }).run(1000);
    await mock.connection();
    // Whether or not the relay's `take` waits already, the channel's buffer holds the message for it.
    mock.send({ type: 'output', data: 'hello' });
    await running;
  });
});
