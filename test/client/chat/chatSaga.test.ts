import { combineReducers } from '@reduxjs/toolkit';
import { assignMock } from '../utils/browser';
import { messageSubmittedWorker, requestKill, runAgentTurn, type AgentTurn } from '../../../src/client/common/chat/chatSaga';
import {
  chatSlice,
  chunkReceived,
  messageSubmitted,
  selectChatThread,
  stopRequested,
  turnStarted,
  type ChatState,
} from '../../../src/client/common/chat/chatSlice';
import { createAgentStreamChannel, type FetchLike } from '../../../src/client/common/chat/streamChannel';
import { CALL_ERRORS, CHAT, INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import type { StreamEvent } from '../../../src/shared/events';
import { expectSaga, matchers } from '../utils/sagaHelpers';
import { replyEvents, sseText, textStream } from '../utils/planningServer';

const KEY = '7:requirements';
const PATH = '/planning/requirements-gatherer';
const KILL = '/planning/requirements-gatherer/kill';
const reducer = combineReducers({ chat: chatSlice.reducer });

interface FakeServer {
  fetch: FetchLike;
  calls: Array<{ url: string; init: RequestInit }>;
}

/** A fetch that answers every call with `respond()`: a Response over a ReadableStream the test builds. */
function fakeServer(respond: () => Response): FakeServer {
  const calls: FakeServer['calls'] = [];
  return {
    calls,
    fetch: async (url, init) => {
      calls.push({ url, init });
      return respond();
    },
  };
}

const streamOf = (pieces: readonly string[], hold = false): Response =>
  new Response(textStream(pieces, { hold }), { headers: { 'Content-Type': 'text/event-stream' } });

const turn = (overrides: Partial<AgentTurn> = {}): AgentTurn => ({
  key: KEY,
  request: { path: PATH, body: { message: 'Hi' } },
  userMessage: 'Hi',
  killPath: KILL,
  ...overrides,
});

function channelFrom(server: FakeServer, body: unknown = { message: 'Hi' }) {
  return createAgentStreamChannel({ path: PATH, body }, server.fetch);
}

function run(agentTurn: AgentTurn, server: FakeServer) {
  return expectSaga(runAgentTurn, agentTurn)
    .withReducer(reducer)
    .provide([
      [matchers.call.fn(createAgentStreamChannel), channelFrom(server, agentTurn.request.body)],
      [matchers.call.fn(requestKill), undefined],
    ]);
}

const threadOf = (state: { chat: ChatState }) => selectChatThread(state, KEY);

describe('chat streaming saga', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    window.history.replaceState(null, '', '/app/7');
  });

  it('streams a reply into the chat and ends on on_chat_model_end, with the thread id and model', async () => {
    const server = fakeServer(() => streamOf([sseText(replyEvents('Hello there', 'thread-9', 'offline-planner'))]));
    const result = await run(turn(), server)
      .put(turnStarted({ key: KEY, userMessage: 'Hi' }))
      .put(chunkReceived({ key: KEY, content: 'Hello ', threadId: 'thread-9', model: 'offline-planner', ownThread: true }))
      .returns({ status: 'ended' })
      .run();
    const thread = threadOf(result.storeState);
    expect(thread.messages.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there' },
    ]);
    expect(thread).toMatchObject({ status: 'idle', threadId: 'thread-9', model: 'offline-planner' });
  });

  it('sends the body as JSON with the Installation-Id and Project-Id headers, by POST', async () => {
    const server = fakeServer(() => streamOf([sseText(replyEvents('ok'))]));
    await run(turn({ request: { path: PATH, body: { message: 'Hi', thread_id: 't-1' } } }), server).run();
    expect(server.calls).toHaveLength(1);
    const [{ url, init }] = server.calls;
    expect(url).toBe('http://localhost/api/planning/requirements-gatherer');
    expect(init.method).toBe('POST');
    const headers = new Headers(init.headers);
    expect([headers.get('Installation-Id'), headers.get('Project-Id'), headers.get('Content-Type')]).toEqual(['42', '7', 'application/json']);
    expect(JSON.parse(String(init.body))).toEqual({ message: 'Hi', thread_id: 't-1' });
  });

  it('reads frames split across chunks at any byte', async () => {
    const text = sseText(replyEvents('Ünïcode works fine'));
    const bytes = new TextEncoder().encode(text);
    const server = fakeServer(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
              controller.close();
            },
          }),
        ),
    );
    const result = await run(turn(), server).run();
    expect(threadOf(result.storeState).messages[1].content).toBe('Ünïcode works fine');
  });

  it('closes on on_chat_model_end even when the server keeps the connection open', async () => {
    const server = fakeServer(() => streamOf([sseText(replyEvents('Done'))], true));
    const result = await run(turn(), server).returns({ status: 'ended' }).run({ timeout: 1000 });
    expect(threadOf(result.storeState).status).toBe('idle');
  });

  it('appends the error reply for an error frame', async () => {
    const events: StreamEvent[] = [
      { event: 'on_chat_model_stream', thread_id: 't-1', chunk: { content: '' } },
      { event: 'error', thread_id: 't-1', data: { detail: 'model unavailable' } },
    ];
    const server = fakeServer(() => streamOf([sseText(events)]));
    const result = await run(turn(), server)
      .returns({ status: 'failed', phase: 'stream', httpStatus: null, message: 'model unavailable' })
      .run();
    const thread = threadOf(result.storeState);
    expect(thread.messages[1]).toMatchObject({ role: 'assistant', content: CHAT.errorReply, kind: 'error' });
    expect(thread.status).toBe('idle');
  });

  it('treats a body that ends without on_chat_model_end as a failure, keeping what was said', async () => {
    const server = fakeServer(() =>
      streamOf([sseText([{ event: 'on_chat_model_stream', thread_id: 't-1', chunk: { content: 'Partial' } }])]),
    );
    const result = await run(turn(), server).run();
    const contents = threadOf(result.storeState).messages.map((message) => message.content);
    expect(contents).toEqual(['Hi', 'Partial', CHAT.errorReply]);
  });

  it("shows a 402's detail with the way to add credits", async () => {
    const server = fakeServer(() => Response.json({ detail: 'You are out of credits.' }, { status: 402 }));
    const result = await run(turn(), server).run();
    expect(threadOf(result.storeState).messages[1]).toMatchObject({ content: 'You are out of credits.', kind: 'outOfCredits' });
  });

  it('ends the session on a 401, like every other call (the call conventions, api/callConventions.ts)', async () => {
    const server = fakeServer(() => Response.json({ detail: 'Not signed in' }, { status: 401 }));
    await run(turn(), server).run();
    expect(window.sessionStorage.getItem(INSTALLATION_ID_KEY)).toBeNull();
    expect(assignMock()).toHaveBeenCalledWith('/');
  });

  it("needs a project id in the URL: 'No project ID found in URL'", async () => {
    window.history.replaceState(null, '', '/app');
    const server = fakeServer(() => streamOf([]));
    const result = await run(turn({ failureText: (failure) => failure.message }), server).run();
    expect(server.calls).toHaveLength(0);
    expect(threadOf(result.storeState).messages[1].content).toBe(CALL_ERRORS.noProjectIdInUrl);
  });

  it('Stop aborts the fetch, calls the kill endpoint and appends "Generation stopped by user."', async () => {
    const server = fakeServer(() =>
      streamOf([sseText([{ event: 'on_chat_model_stream', thread_id: 't-1', chunk: { content: 'Working' } }])], true),
    );
    const result = await run(turn(), server)
      .delay(50)
      .dispatch(stopRequested({ key: KEY }))
      .call(requestKill, KILL)
      .returns({ status: 'stopped' })
      .run({ timeout: 1000 });
    expect((server.calls[0].init.signal as AbortSignal).aborted).toBe(true);
    const thread = threadOf(result.storeState);
    expect(thread.messages.map((message) => message.content)).toEqual(['Hi', 'Working', CHAT.generationStopped]);
    expect(thread.status).toBe('idle');
  });
});

describe('messageSubmittedWorker', () => {
  const submit = (message: string) => messageSubmitted({ key: KEY, message, path: PATH, killPath: KILL });

  it('sends nothing for an empty or whitespace-only message', async () => {
    await expectSaga(messageSubmittedWorker, submit('  \n '))
      .withReducer(reducer)
      .not.call.fn(runAgentTurn)
      .run();
  });

  it('sends nothing while a reply streams', async () => {
    const state = reducer(undefined, turnStarted({ key: KEY, userMessage: 'first' }));
    await expectSaga(messageSubmittedWorker, submit('second'))
      .withReducer(reducer, state)
      .not.call.fn(runAgentTurn)
      .run();
  });

  it('continues the conversation with the thread id from the streamed events', async () => {
    let state = reducer(undefined, turnStarted({ key: KEY, userMessage: 'first' }));
    state = reducer(state, chunkReceived({ key: KEY, content: 'ok', threadId: 't-5', model: null, ownThread: true }));
    state = reducer(state, chatSlice.actions.turnEnded({ key: KEY, threadId: 't-5', model: null, ownThread: true }));
    await expectSaga(messageSubmittedWorker, submit('second'))
      .withReducer(reducer, state)
      .provide([[matchers.call.fn(runAgentTurn), { status: 'ended' }]])
      .call(runAgentTurn, {
        key: KEY,
        request: { path: PATH, body: { message: 'second', thread_id: 't-5' } },
        userMessage: 'second',
        killPath: KILL,
      })
      .run();
  });
});
