import { http, HttpResponse } from 'msw';
import { apiSlice } from '../../../src/client/api/apiSlice';
import { makeStore } from '../../../src/client/app/store';
import { authApi } from '../../../src/client/common/auth/authApi';
import { signOutRequested } from '../../../src/client/common/auth/authSlice';
import { projectsApi } from '../../../src/client/common/projects/projectsApi';
import { stagesApi } from '../../../src/client/common/stages/stagesApi';
import { INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { assignMock } from '../utils/browser';
import { makeProject } from '../utils/factories';
import { api, seedProjects, server } from '../utils/server';

/** Records the headers of every request the handlers see. */
function recordHeaders(): Headers[] {
  const seen: Headers[] = [];
  server.events.on('request:start', ({ request }) => {
    seen.push(request.headers);
  });
  return seen;
}

describe('apiSlice call conventions', () => {
  beforeEach(() => server.events.removeAllListeners());

  it('sends Installation-Id on every call and no Project-Id outside a project URL', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    window.history.replaceState(null, '', '/app');
    const headers = recordHeaders();
    const store = makeStore();
    const result = await store.dispatch(projectsApi.endpoints.getProjects.initiate());
    expect(result.data).toEqual([]);
    expect(headers[0].get('Installation-Id')).toBe('42');
    expect(headers[0].has('Project-Id')).toBe(false);
  });

  it('sends Project-Id when the URL names a project', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    seedProjects(makeProject({ id: 7 }));
    window.history.replaceState(null, '', '/app/7/home/docs');
    const headers = recordHeaders();
    const store = makeStore();
    await store.dispatch(stagesApi.endpoints.getProjectState.initiate(7));
    expect(headers[0].get('Project-Id')).toBe('7');
    expect(headers[0].get('Installation-Id')).toBe('42');
  });

  it("fails calls outside /github with 'No installation ID found' and sends nothing", async () => {
    const headers = recordHeaders();
    const store = makeStore();
    const result = await store.dispatch(projectsApi.endpoints.getProjects.initiate());
    expect(result.error).toEqual({ status: 'CUSTOM_ERROR', message: 'No installation ID found' });
    expect(headers).toHaveLength(0);
  });

  it('sends nothing but /github calls once Sign Out has begun (no call is answered 401 by the ending session)', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const headers = recordHeaders();
    const store = makeStore();
    store.dispatch(signOutRequested());
    const result = await store.dispatch(projectsApi.endpoints.getProjects.initiate());
    expect(result.error).toEqual({ status: 'CUSTOM_ERROR', message: 'No installation ID found' });
    expect(headers).toHaveLength(0);
    await store.dispatch(authApi.endpoints.logout.initiate());
    expect(headers).toHaveLength(1);
  });

  it('lets /github calls through without an installation id', async () => {
    const store = makeStore();
    const result = await store.dispatch(authApi.endpoints.localLogin.initiate({ login: 'alice' }));
    expect(result.data).toEqual({ installation_id: 1000 });
  });

  it('clears session storage and sends the browser to / on a 401', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    sessionStorage.setItem('something_else', 'x');
    server.use(http.get(api('/projects'), () => HttpResponse.json({ detail: 'Session expired' }, { status: 401 })));
    const store = makeStore();
    const result = await store.dispatch(projectsApi.endpoints.getProjects.initiate());
    expect(result.error).toMatchObject({ status: 401, message: 'Session expired' });
    expect(sessionStorage.length).toBe(0);
    expect(assignMock()).toHaveBeenCalledWith('/');
  });

  describe('error texts (part 1 section 8)', () => {
    beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

    async function errorFor(response: () => Response): Promise<unknown> {
      server.use(http.get(api('/projects'), response));
      const store = makeStore();
      const result = await store.dispatch(projectsApi.endpoints.getProjects.initiate());
      return result.error;
    }

    it("uses the server's detail", async () => {
      const error = await errorFor(() => HttpResponse.json({ detail: 'Project name is required' }, { status: 400 }));
      expect(error).toMatchObject({ status: 400, message: 'Project name is required' });
    });

    it("uses the server's message when there is no detail", async () => {
      const error = await errorFor(() => HttpResponse.json({ message: 'Out of credits' }, { status: 402 }));
      expect(error).toMatchObject({ status: 402, message: 'Out of credits' });
    });

    it("falls back to 'HTTP {status}: {statusText}'", async () => {
      const error = await errorFor(() => HttpResponse.json({}, { status: 503, statusText: 'Service Unavailable' }));
      expect(error).toMatchObject({ status: 503, message: 'HTTP 503: Service Unavailable' });
    });

    it("falls back to 'HTTP {status}: {body}' without a status text", async () => {
      const error = await errorFor(() => new HttpResponse('upstream timed out', { status: 599 }));
      expect(error).toMatchObject({ status: 599, message: 'HTTP 599: upstream timed out' });
    });

    it('does not treat other errors as a sign-out', async () => {
      await errorFor(() => HttpResponse.json({ detail: 'Forbidden' }, { status: 403 }));
      expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBe('42');
      expect(assignMock()).not.toHaveBeenCalled();
    });
  });

  it('answers null for 204 and parses JSON and text answers', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const store = makeStore();
    const logout = await store.dispatch(authApi.endpoints.logout.initiate());
    expect(logout).toEqual({ data: null });

    const probe = apiSlice.injectEndpoints({
      endpoints: (build) => ({ probeText: build.query<string, void>({ query: () => '/probe' }) }),
    });
    server.use(http.get(api('/probe'), () => HttpResponse.text('plain words')));
    const text = await store.dispatch(probe.endpoints.probeText.initiate());
    expect(text.data).toBe('plain words');
  });
});
