import { http, HttpResponse, type DefaultBodyType, type StrictRequest } from 'msw';
import { setupServer } from 'msw/node';
import type { LocalLoginBody, LocalLoginResponse, UserProfile } from '../../../src/shared/api/auth';
import type { ChatThreadResponse, ErrorResponse } from '../../../src/shared/api/common';
import type { CreateProjectBody, Project, ProjectList } from '../../../src/shared/api/projects';
import type { ProjectState, SetCurrentStageResponse, Stage, StageUpdateBody } from '../../../src/shared/api/stages';
import type { ProjectCostsResponse as ProjectCosts } from '../../../src/shared/api/costs';
import type { DocumentationResponse } from '../../../src/shared/api/documentation';
import type { ContainerStatusResponse, SandboxPreflightResponse } from '../../../src/shared/api/sandbox';
import { makeProject, makeProjectState, makeUser, resetFactoryIds } from './factories';
import { planningHandlers, resetPlanningDb } from './planningServer';
import { activityHandlers, resetActivityDb } from './activityServer';
import { notificationsHandlers, resetNotificationsDb } from './notificationsServer';
import { releasesHandlers, resetReleasesDb } from './releasesServer';
import { backupsHandlers, resetBackupsDb } from './backupsServer';

/** Absolute URL of an API path, as the client calls it. */
export const api = (path: string): string => `http://localhost/api${path}`;

/**
 * What the default handlers serve. Tests change it directly (`db.projects = [...]`) or override a
 * handler with `server.use(...)`; `resetDb()` runs after each test.
 */
export const db = {
  user: makeUser(),
  projects: [] as Project[],
  projectStates: new Map<number, ProjectState>(),
  costs: new Map<number, ProjectCosts>(),
  /** Stored conversations by `${projectId}:${path}` ('7:execution', '7:devops-helper'); none answers an empty thread. */
  chatThreads: new Map<string, ChatThreadResponse>(),
  nextInstallationId: 1000,
};

export function resetDb(): void {
  resetFactoryIds();
  db.user = makeUser();
  db.projects = [];
  db.projectStates = new Map();
  db.costs = new Map();
  db.chatThreads = new Map();
  db.nextInstallationId = 1000;
  resetPlanningDb();
  resetActivityDb();
  resetNotificationsDb();
  resetReleasesDb();
  resetBackupsDb();
}

/** Adds projects (with their default stage state) to the fake server and returns them. */
export function seedProjects(...projects: Project[]): Project[] {
  for (const project of projects) {
    db.projects.push(project);
    if (!db.projectStates.has(project.id)) db.projectStates.set(project.id, makeProjectState(project.id));
  }
  return projects;
}

const detail = (status: number, text: string): HttpResponse<ErrorResponse> =>
  HttpResponse.json({ detail: text }, { status });

/** Like the real server: no Installation-Id, no answer. */
function unauthorised(request: StrictRequest<DefaultBodyType>): HttpResponse<ErrorResponse> | null {
  return request.headers.get('Installation-Id') ? null : detail(401, 'Not signed in');
}

function findProject(id: string): Project | undefined {
  return db.projects.find((project) => project.id === Number(id));
}

/** GET /api/{execution,devops-helper}/thread: the stored conversation of the Project-Id's chat. */
const chatThreadHandler = (path: 'execution' | 'devops-helper') =>
  http.get<never, never, ChatThreadResponse | ErrorResponse>(api(`/${path}/thread`), ({ request }) => {
    const key = `${request.headers.get('Project-Id')}:${path}`;
    return unauthorised(request) ?? HttpResponse.json(db.chatThreads.get(key) ?? { thread_id: null, model: 'offline-planner', messages: [] });
  });

/** The open GET /api/terminal/commands streams: `sendCommandFrame` writes to each. */
const commandStreams = new Set<ReadableStreamDefaultController<Uint8Array>>();

/** Sends one frame (a TerminalStreamEvent) on every open command stream, as the server does when a step runs. */
export function sendCommandFrame(frame: object): void {
  const bytes = new TextEncoder().encode(`data: ${JSON.stringify(frame)}\n\n`);
  for (const controller of commandStreams) controller.enqueue(bytes);
}

/** How many GET /api/terminal/commands streams are open (a frame sent before its page connected is lost). */
export const openCommandStreams = (): number => commandStreams.size;

/** GET /api/terminal/commands: open until the page closes it; frames come from `sendCommandFrame`. */
const commandsHandler = http.get(api('/terminal/commands'), ({ request }) => {
  let own: ReadableStreamDefaultController<Uint8Array> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      own = controller;
      commandStreams.add(controller);
      controller.enqueue(new TextEncoder().encode(': connected\n\n'));
      request.signal.addEventListener('abort', () => {
        commandStreams.delete(controller);
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
    },
    cancel() {
      if (own) commandStreams.delete(own);
    },
  });
  return new HttpResponse(stream, { headers: { 'Content-Type': 'text/event-stream' } });
});

export const handlers = [
  commandsHandler,
  chatThreadHandler('execution'),
  chatThreadHandler('devops-helper'),
  http.get<never, never, UserProfile | ErrorResponse>(api('/github/user'), ({ request }) => {
    return unauthorised(request) ?? HttpResponse.json(db.user);
  }),
  http.post<never, LocalLoginBody, LocalLoginResponse | ErrorResponse>(api('/github/local-login'), async ({ request }) => {
    const body = await request.json();
    if (!/^[A-Za-z0-9-]{1,39}$/.test(body.login)) return detail(400, 'login must be 1-39 letters, digits or hyphens');
    return HttpResponse.json({ installation_id: db.nextInstallationId++ });
  }),
  http.post(api('/github/logout'), () => new HttpResponse(null, { status: 204 })),

  http.get<never, never, ProjectList | ErrorResponse>(api('/projects'), ({ request }) => {
    return unauthorised(request) ?? HttpResponse.json(db.projects);
  }),
  http.post<never, CreateProjectBody, Project | ErrorResponse>(api('/projects'), async ({ request }) => {
    const denied = unauthorised(request);
    if (denied) return denied;
    const body = await request.json();
    const name = body.name.trim();
    if (!name) return detail(400, 'Project name is required');
    const now = new Date().toISOString();
    const [project] = seedProjects(
      makeProject({ name, description: body.description ?? null, created_at: now, updated_at: now }),
    );
    return HttpResponse.json(project, { status: 201 });
  }),
  http.get<{ id: string }, never, Project | ErrorResponse>(api('/projects/:id'), ({ request, params }) => {
    const project = findProject(params.id);
    return unauthorised(request) ?? (project ? HttpResponse.json(project) : detail(404, 'Project not found'));
  }),
  http.get<{ id: string }, never, ProjectCosts | ErrorResponse>(api('/projects/:id/costs'), ({ request, params }) => {
    const costs = db.costs.get(Number(params.id)) ?? { total_cost: '0', last_updated: null };
    return unauthorised(request) ?? HttpResponse.json(costs);
  }),

  // The project home's calls; test/client/projectHome/fakeSandbox.ts serves a stateful sandbox.
  http.get<never, never, ContainerStatusResponse | ErrorResponse>(api('/sandboxes/:projectId/status'), ({ request }) => {
    return unauthorised(request) ?? HttpResponse.json({ container_status: 'Running', username: 'user-1', last_sync_time: null });
  }),
  http.get<never, never, SandboxPreflightResponse | ErrorResponse>(api('/sandboxes/:projectId/preflight'), ({ request }) => {
    return unauthorised(request) ?? HttpResponse.json({ missing_tools: [], checked_at: null });
  }),
  http.get<never, never, DocumentationResponse | ErrorResponse>(api('/documentation/current'), ({ request }) => {
    const missing = { status: 'missing', documentation: '', quickstart: '', key_value_data: {} } as const;
    return unauthorised(request) ?? HttpResponse.json(missing);
  }),

  http.get<{ projectId: string }, never, ProjectState | ErrorResponse>(
    api('/project-states/:projectId'),
    ({ request, params }) => {
      const state = db.projectStates.get(Number(params.projectId));
      return unauthorised(request) ?? (state ? HttpResponse.json(state) : detail(404, 'Project not found'));
    },
  ),
  http.put<{ projectId: string; stageId: string }, never, SetCurrentStageResponse | ErrorResponse>(
    api('/project-states/:projectId/current-stage/:stageId'),
    ({ request, params }) => {
      const denied = unauthorised(request);
      if (denied) return denied;
      const state = db.projectStates.get(Number(params.projectId));
      const index = state?.stages.findIndex((stage) => stage.stage_id === params.stageId) ?? -1;
      if (!state || index < 0) return detail(404, 'Stage not found');
      state.current_stage_index = index;
      state.stages = state.stages.map((stage, i) => ({ ...stage, is_active: i === index || stage.is_active }));
      return HttpResponse.json({ current_stage_index: index, stage_id: params.stageId });
    },
  ),
  http.put<{ projectId: string; stageId: string }, StageUpdateBody, Stage | ErrorResponse>(
    api('/project-states/:projectId/stages/:stageId'),
    async ({ request, params }) => {
      const denied = unauthorised(request);
      if (denied) return denied;
      const state = db.projectStates.get(Number(params.projectId));
      const index = state?.stages.findIndex((stage) => stage.stage_id === params.stageId) ?? -1;
      if (!state || index < 0) return detail(404, 'Stage not found');
      const merged = { ...state.stages[index], ...(await request.json()) };
      state.stages[index] = merged;
      if (merged.is_completed && index + 1 < state.stages.length) state.current_stage_index = index + 1;
      return HttpResponse.json(merged);
    },
  ),
];

/** The msw server of the client tests; any request without a handler fails the test. */
export const server = setupServer(...handlers, ...planningHandlers, ...activityHandlers, ...notificationsHandlers, ...releasesHandlers, ...backupsHandlers);
