import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { runSaga, type Task } from 'redux-saga';
import { DevopsHelperPage } from '../../../src/client/features/devopsHelper/DevopsHelperPage';
import { approvalSocket } from '../../../src/client/features/devopsHelper/devopsHelperSaga';
import { approvalRequested, devopsHelperChatKey, selectApprovals } from '../../../src/client/features/devopsHelper/devopsHelperSlice';
import { DEVOPS_HELPER, DEVOPS_HELPER_APPROVAL, DEVOPS_HELPER_WARNING, INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { createMockSocketServer } from '../utils/mockSocket';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, db, server } from '../utils/server';
import { makeAppStore } from '../utils/store';

const PROJECT = 7;
const KEY = devopsHelperChatKey(PROJECT);
const SOCKET_URL = `ws://localhost/api/devops-helper/ws/approval/${PROJECT}`;
const ROUTE = `/app/${PROJECT}/home/devops-helper`;

beforeEach(() => {
  window.sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  window.localStorage.clear();
});

const renderPage = (store = makeAppStore()) =>
  renderWithProviders(<DevopsHelperPage />, {
    store,
    route: ROUTE,
    path: '/app/:projectId/home/devops-helper',
    routes: [{ path: '/app/:projectId/home', element: <p>Project home</p> }],
  });

describe('DevOps Helper warning dialog', () => {
  it('enables I Understand - Proceed only once the checkbox is ticked, then shows the chat', async () => {
    createMockSocketServer(SOCKET_URL);
    const { user } = renderPage();
    const dialog = await screen.findByRole('dialog', { name: DEVOPS_HELPER_WARNING.title });
    expect(dialog).toHaveTextContent('full command access in your sandbox and on your VPS');
    const proceed = screen.getByRole('button', { name: DEVOPS_HELPER_WARNING.proceed });
    expect(proceed).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: DEVOPS_HELPER_WARNING.checkbox }));
    expect(proceed).toBeEnabled();
    await user.click(screen.getByRole('checkbox', { name: DEVOPS_HELPER_WARNING.checkbox }));
    expect(proceed).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: DEVOPS_HELPER_WARNING.checkbox }));
    await user.click(proceed);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: DEVOPS_HELPER.title })).toBeInTheDocument();
    expect(window.localStorage.getItem(DEVOPS_HELPER.acceptanceStorageKey)).toBe('true');
  });

  it("puts a question another screen prepared (?ask=) in the input, unsent, and shows where an approval runs", async () => {
    createMockSocketServer(SOCKET_URL);
    const store = makeAppStore();
    const { user } = renderWithProviders(<DevopsHelperPage />, {
      store,
      route: `${ROUTE}?ask=${encodeURIComponent('Validation check 3 (Proxy) failed: nothing answers')}`,
      path: '/app/:projectId/home/devops-helper',
    });
    await user.click(await screen.findByRole('checkbox', { name: DEVOPS_HELPER_WARNING.checkbox }));
    await user.click(screen.getByRole('button', { name: DEVOPS_HELPER_WARNING.proceed }));
    expect(screen.getByLabelText(`Message ${DEVOPS_HELPER.title}`)).toHaveValue('Validation check 3 (Proxy) failed: nothing answers');
    act(() => {
      store.dispatch(approvalRequested({ key: KEY, item: { id: 'a1', command: "ssh -F ssh-keys/config da-server 'df -h'", dangerousReason: null, runsOn: { kind: 'server', name: 'da-server', address: 'deploy@203.0.113.7:2222' }, afterMessageId: 0 } }));
    });
    expect(await screen.findByTestId('approval-runs-on')).toHaveTextContent(DEVOPS_HELPER_APPROVAL.runsOnServer('da-server', 'deploy@203.0.113.7:2222'));
  });

  it('keeps the acceptance in local storage for this page only: cleared on unload', async () => {
    createMockSocketServer(SOCKET_URL);
    window.localStorage.setItem(DEVOPS_HELPER.acceptanceStorageKey, 'true');
    renderPage();
    expect(await screen.findByRole('heading', { name: DEVOPS_HELPER.title })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    window.dispatchEvent(new Event('beforeunload'));
    expect(window.localStorage.getItem(DEVOPS_HELPER.acceptanceStorageKey)).toBeNull();
  });

  it('goes back to the project home when the notice is dismissed without accepting', async () => {
    createMockSocketServer(SOCKET_URL);
    const { user, router } = renderPage();
    await screen.findByRole('dialog');
    await user.keyboard('{Escape}');
    expect(router.state.location.pathname).toBe(`/app/${PROJECT}/home`);
  });
});

describe('DevOps Helper approval card', () => {
  const showApproval = async (id: string, dangerousReason: string | null = null) => {
    createMockSocketServer(SOCKET_URL);
    window.localStorage.setItem(DEVOPS_HELPER.acceptanceStorageKey, 'true');
    const store = makeAppStore();
    const rendered = renderPage(store);
    await screen.findByRole('heading', { name: DEVOPS_HELPER.title });
    act(() => {
      store.dispatch(approvalRequested({ key: KEY, item: { id, command: 'echo hello-helper', dangerousReason, afterMessageId: 0 } }));
    });
    return { ...rendered, store };
  };

  it('approves exactly its request id and shows it approved', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(api('/devops-helper/approval'), async ({ request }) => {
        bodies.push(await request.json());
        expect(request.headers.get('Project-Id')).toBe(String(PROJECT));
        return HttpResponse.json({ approval_id: 'a-1', status: 'approved' });
      }),
    );
    const { user, store } = await showApproval('a-1');
    const card = screen.getByRole('listitem', { name: DEVOPS_HELPER_APPROVAL.title });
    expect(card).toHaveTextContent('echo hello-helper');
    await user.click(screen.getByRole('button', { name: DEVOPS_HELPER.approve }));
    expect(await screen.findByText(DEVOPS_HELPER_APPROVAL.status.approved)).toBeInTheDocument();
    expect(bodies).toEqual([{ approval_id: 'a-1', approved: true }]);
    expect(screen.queryByRole('button', { name: DEVOPS_HELPER.approve })).not.toBeInTheDocument();
    expect(selectApprovals(store.getState(), KEY)[0]?.status).toBe('approved');
  });

  it('denies, and flags a dangerous command', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(api('/devops-helper/approval'), async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ approval_id: 'a-2', status: 'denied' });
      }),
    );
    const { user } = await showApproval('a-2', 'Deletes files recursively');
    expect(screen.getByRole('alert')).toHaveTextContent(DEVOPS_HELPER_APPROVAL.dangerous('Deletes files recursively'));
    await user.click(screen.getByRole('button', { name: DEVOPS_HELPER.deny }));
    expect(await screen.findByText(DEVOPS_HELPER_APPROVAL.status.denied)).toBeInTheDocument();
    expect(bodies).toEqual([{ approval_id: 'a-2', approved: false }]);
  });

  it('shows a request the server no longer knows as expired (the failure is only logged)', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(http.post(api('/devops-helper/approval'), () => HttpResponse.json({ detail: 'Approval request not found or expired' }, { status: 404 })));
    const { user } = await showApproval('a-3');
    await user.click(screen.getByRole('button', { name: DEVOPS_HELPER.approve }));
    expect(await screen.findByText(DEVOPS_HELPER_APPROVAL.status.expired)).toBeInTheDocument();
    expect(log).toHaveBeenCalled();
    log.mockRestore();
  });
});

describe('approval socket saga', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  const advance = (ms: number): Promise<void> => act(() => jest.advanceTimersByTimeAsync(ms));
  const pings = (received: unknown[]): number => received.filter((m) => (m as { type?: string }).type === 'ping').length;

  it('pings on open and every 30 s, turns requests into approval messages, and reconnects 5 s after an unclean close', async () => {
    const mock = createMockSocketServer(SOCKET_URL);
    let connections = 0;
    mock.server.on('connection', () => (connections += 1));
    const store = makeAppStore();
    const task: Task = runSaga({ dispatch: store.dispatch, getState: store.getState }, approvalSocket, PROJECT);
    await advance(50);
    expect(connections).toBe(1);
    expect(pings(mock.received)).toBe(1);
    await advance(DEVOPS_HELPER.approvalPingMs - 100);
    expect(pings(mock.received)).toBe(1);
    await advance(100);
    expect(pings(mock.received)).toBe(2);

    mock.send({ type: 'approval_request', id: 'r-1', command: 'df -h', dangerous_reason: 'none really' });
    mock.send({ type: 'pong' });
    await advance(50);
    expect(selectApprovals(store.getState(), KEY)).toEqual([
      { id: 'r-1', command: 'df -h', dangerousReason: 'none really', afterMessageId: 0, status: 'pending' },
    ]);

    // An unclean close: a new socket after 5 s, not before, and it pings on open.
    const clients = await mock.connection();
    clients.close({ code: 1006, reason: 'gone', wasClean: false });
    await advance(DEVOPS_HELPER.approvalReconnectMs - 100);
    expect(connections).toBe(1);
    await advance(200);
    expect(connections).toBe(2);
    expect(pings(mock.received)).toBe(3);

    // A clean close ends it: no reconnect.
    (await mock.connection()).close({ code: 1000, reason: 'bye', wasClean: true });
    await advance(DEVOPS_HELPER.approvalReconnectMs * 3);
    expect(connections).toBe(2);
    expect(task.isRunning()).toBe(false);
  });

  it('closes the socket and stops pinging when cancelled', async () => {
    const mock = createMockSocketServer(SOCKET_URL);
    const store = makeAppStore();
    const task: Task = runSaga({ dispatch: store.dispatch, getState: store.getState }, approvalSocket, PROJECT);
    await advance(50);
    const client = await mock.connection();
    const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
    task.cancel();
    await advance(50);
    await closed;
    const before = pings(mock.received);
    await advance(DEVOPS_HELPER.approvalPingMs * 2);
    expect(pings(mock.received)).toBe(before);
  });
});

describe('DevOps Helper chat history', () => {
  it('a reload shows the stored conversation with its command notes, and the next message continues its thread', async () => {
    createMockSocketServer(SOCKET_URL);
    window.localStorage.setItem(DEVOPS_HELPER.acceptanceStorageKey, 'true');
    db.chatThreads.set(`${PROJECT}:devops-helper`, {
      thread_id: 't-helper',
      model: 'offline-planner',
      messages: [
        { role: 'user', content: 'run `uptime`' },
        { role: 'assistant', content: 'Running it.\n\n`uptime` exited with code 0: up 3 days' },
      ],
    });
    const bodies: unknown[] = [];
    server.use(
      http.post(api('/devops-helper/chat'), async ({ request }) => {
        bodies.push(await request.json());
        return new HttpResponse('event: id\ndata: {"thread_id":"t-helper"}\n\nevent: message\ndata: {"event":"on_chat_model_end","thread_id":"t-helper"}\n\n', {
          headers: { 'content-type': 'text/event-stream' },
        });
      }),
    );
    const { user } = renderPage();
    expect(await screen.findByText(/exited with code 0: up 3 days/)).toBeInTheDocument();
    expect(screen.getByText('run `uptime`')).toBeInTheDocument();
    expect(screen.getByText('t-helper')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox'), 'and the load?{Enter}');
    await waitFor(() => expect(bodies).toEqual([{ message: 'and the load?', thread_id: 't-helper' }]));
  });
});

describe('DevOps Helper chat stream', () => {
  it("streams the reply, shows 'Server error: {detail}' for an error frame, and Stop calls /kill", async () => {
    createMockSocketServer(SOCKET_URL);
    window.localStorage.setItem(DEVOPS_HELPER.acceptanceStorageKey, 'true');
    let kills = 0;
    let call = 0;
    server.use(
      http.post(api('/devops-helper/chat'), () => {
        call += 1;
        const frames =
          call === 1
            ? [
                'event: id\ndata: {"thread_id":"t-9"}\n\n',
                'event: message\ndata: {"event":"on_chat_model_stream","thread_id":"t-9","chunk":{"content":"hello-"},"model":"offline-planner"}\n\n',
                'data: {"event":"on_chat_model_stream","thread_id":"t-9","chunk":{"content":"helper"}}\n\n',
                'event: message\ndata: {"event":"on_chat_model_end","thread_id":"t-9"}\n\n',
              ]
            : call === 2
              ? ['event: id\ndata: {"thread_id":"t-9"}\n\n', 'event: error\ndata: {"detail":"sandbox is down"}\n\n']
              : ['event: id\ndata: {"thread_id":"t-9"}\n\n'];
        const encoder = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const f of frames) controller.enqueue(encoder.encode(f));
            if (call < 3) controller.close();
          },
        });
        return new HttpResponse(stream, { headers: { 'content-type': 'text/event-stream' } });
      }),
      http.post(api('/devops-helper/kill'), () => {
        kills += 1;
        return HttpResponse.json({ status: 'stopped' });
      }),
    );
    const { user } = renderPage();
    const input = await screen.findByRole('textbox');
    await user.type(input, 'run `echo hello-helper`{Enter}');
    expect(await screen.findByText('hello-helper')).toBeInTheDocument();
    expect(screen.getByText('t-9')).toBeInTheDocument();
    await user.type(input, 'again{Enter}');
    expect(await screen.findByText('Server error: sandbox is down')).toBeInTheDocument();
    await user.type(input, 'and again{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Stop' }));
    expect(await screen.findByText('Generation stopped by user.')).toBeInTheDocument();
    await waitFor(() => expect(kills).toBe(1));
  });
});
