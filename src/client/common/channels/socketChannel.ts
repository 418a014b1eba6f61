import { buffers, END, eventChannel, type Buffer, type EventChannel } from 'redux-saga';

/** What a socket channel emits: action-shaped, serialisable events. */
export type SocketEvent<T> =
  | { type: 'socket/opened' }
  | { type: 'socket/message'; payload: T }
  | { type: 'socket/errored' }
  | { type: 'socket/closed'; code: number; wasClean: boolean; reason: string };

export interface SocketChannel<TIn, TOut> {
  events: EventChannel<SocketEvent<TIn>>;
  /** Sends a JSON message; false when the socket is not open (the message is dropped, not queued). */
  send: (message: TOut) => boolean;
}

/** `ws(s)://{this host}{path}` for a same-origin API path such as `/api/sandboxes/7/ws`. */
export function webSocketUrl(path: string, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${path}`;
}

/**
 * Opens a WebSocket wrapped in an `eventChannel` (the maas-ui pattern): every frame becomes a
 * `socket/message` with the parsed payload (frames `parse` rejects are skipped), the close becomes
 * `socket/closed` followed by END, and closing the channel closes the socket. Later features build
 * their terminal and approval channels on it.
 *
 * @example
 *   const { events, send } = createSocketChannel<ServerMessage, ClientMessage>(webSocketUrl(`/api/sandboxes/${id}/ws`));
 *   try { while (true) { const event = yield take(events); ... } } finally { if (yield cancelled()) events.close(); }
 */
export function createSocketChannel<TIn, TOut = unknown>(
  url: string,
  parse: (raw: string) => TIn | null = (raw) => JSON.parse(raw) as TIn,
  buffer: Buffer<SocketEvent<TIn>> = buffers.expanding(64),
): SocketChannel<TIn, TOut> {
  const socket = new WebSocket(url);
  const events = eventChannel<SocketEvent<TIn>>((emit) => {
    const onOpen = (): void => emit({ type: 'socket/opened' });
    const onError = (): void => emit({ type: 'socket/errored' });
    const onMessage = (event: MessageEvent): void => {
      if (typeof event.data !== 'string') return;
      let payload: TIn | null;
      try {
        payload = parse(event.data);
      } catch {
        payload = null;
      }
      if (payload !== null) emit({ type: 'socket/message', payload });
    };
    const onClose = (event: CloseEvent): void => {
      emit({ type: 'socket/closed', code: event.code, wasClean: event.wasClean, reason: event.reason });
      emit(END);
    };
    socket.addEventListener('open', onOpen);
    socket.addEventListener('error', onError);
    socket.addEventListener('message', onMessage);
    socket.addEventListener('close', onClose);
    return () => {
      socket.removeEventListener('open', onOpen);
      socket.removeEventListener('error', onError);
      socket.removeEventListener('message', onMessage);
      socket.removeEventListener('close', onClose);
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close();
    };
  }, buffer);

  const send = (message: TOut): boolean => {
    if (socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  };
  return { events, send };
}
