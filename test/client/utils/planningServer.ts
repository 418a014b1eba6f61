import { http, HttpResponse } from 'msw';
import type { ErrorResponse } from '../../../src/shared/api/common';
import type {
  AnalysisResponse,
  AnalyzerBody,
  KillResponse,
  PlanFinding,
  PlanningThreadResponse,
  PlanResponse,
  RepositoryAnalysis,
  RequirementsResponse,
  SaveUserSecretBody,
  SaveUserSecretResponse,
  UserSecret,
  UserSecretsResponse,
} from '../../../src/shared/api/planning';
import type { BranchesResponse, Repository, RepositoriesResponse } from '../../../src/shared/api/repositories';
import type { StreamEvent } from '../../../src/shared/events';
import { NO_ANALYSIS_MESSAGE } from '../../../src/shared/constants';
import type { StackOpsBody, StackResponse } from '../../../src/shared/api/stack';
import type { ServerInspectionBody, ServerInspectionOffer, ServerInspectionResult } from '../../../src/shared/api/serverInspection';
import { emptyStackModel, type StackModel } from '../../../src/shared/stackModel';
import { applyStackOps, StackOpError, type CatalogueView, type StackOp } from '../../../src/shared/stackOps';

/** A small catalogue for the fake server's stack operations (the real one is built from the catalogue files). */
export const FAKE_CATALOGUE: CatalogueView = {
  postgres: { id: 'postgres', label: 'PostgreSQL 16', category: 'database', ports: [5432], needs: [], proxy: false, hostPorts: [], upstreams: [] },
  redis: { id: 'redis', label: 'Redis 7', category: 'cache', ports: [6379], needs: [], proxy: false, hostPorts: [], upstreams: [] },
  adminer: { id: 'adminer', label: 'Adminer 4.8', category: 'dashboard', ports: [8080], needs: [], proxy: false, hostPorts: [], upstreams: ['adminer'] },
  n8n: { id: 'n8n', label: 'n8n', category: 'automation', ports: [5678], needs: [['postgres']], proxy: false, hostPorts: [], upstreams: ['n8n'] },
  caddy: { id: 'caddy', label: 'Caddy 2', category: 'proxy', ports: [80], needs: [], proxy: true, hostPorts: [80, 443], upstreams: [] },
};

const api = (path: string): string => `http://localhost/api${path}`;

/** The planning agents' stream paths, as the fake server names them. */
export type StreamAgent = 'requirements' | 'architect' | 'implementation' | 'analyzer';

export interface StreamCall {
  agent: StreamAgent;
  body: Record<string, unknown>;
  headers: { installationId: string | null; projectId: string | null };
}

/** `data: {json}\n\n` for each event, as the server writes them. */
export function sseText(events: readonly StreamEvent[]): string {
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('');
}

/** A reply streamed token by token, then the end-of-model event. */
export function replyEvents(text: string, threadId = 't-1', model = 'offline-planner'): StreamEvent[] {
  const words = text.split(/(?<= )/);
  return [
    ...words.map((word) => ({ event: 'on_chat_model_stream', thread_id: threadId, model, chunk: { content: word } })),
    { event: 'on_chat_model_end', thread_id: threadId, model },
  ];
}

/** A ReadableStream that sends each piece as its own network chunk (split anywhere, as TCP does). */
export function textStream(pieces: readonly string[], opts: { hold?: boolean } = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      if (!opts.hold) controller.close();
    },
  });
}

export function sseResponse(body: ReadableStream<Uint8Array> | string): HttpResponse<string> {
  return new HttpResponse(body as string, { headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } });
}

export function makeRepository(overrides: Partial<Repository> = {}): Repository {
  return {
    id: 1,
    name: 'shop-api',
    full_name: 'alice/shop-api',
    description: 'Orders and payments service',
    private: true,
    language: 'TypeScript',
    stargazers_count: 12,
    updated_at: '2025-03-01T09:00:00.000Z',
    default_branch: 'main',
    ...overrides,
  };
}

export function makeAnalysis(overrides: Partial<RepositoryAnalysis> = {}): RepositoryAnalysis {
  return {
    repository: { full_name: 'alice/shop-api', language: 'TypeScript', default_branch: 'main', private: true, description: 'Orders' },
    repo_analysis: { technology_stack: { framework: 'Express', database: ['PostgreSQL'] } },
    environment: { env_content_summary: 'DATABASE_URL is set' },
    user_questions: { reason: 'Some details are missing', questions: { 'Which domain?': '' } },
    deployment_plan: { prerequisites: ['Docker'], deployment_steps: ['Build the image'], post_deployment: [], scaling_considerations: [] },
    analysis: 'An **Express** API with PostgreSQL.',
    message: 'Analysis complete',
    ...overrides,
  };
}

export function makeSecret(overrides: Partial<UserSecret> = {}): UserSecret {
  return { name: 'DB_PASSWORD', description: 'Database password', required: true, provided: false, secret_type: 'password', ...overrides };
}

/** A complete requirements document (part 1 section 3), then the secrets part that parsing skips. */
export const COMPLETE_DOCUMENT = [
  'Summary: A VPS running PostgreSQL for the shop API',
  'Required Stack: PostgreSQL 16, Node.js 20',
  'Configuration Requirements: Daily backups, TLS',
  'Service Integrations: Stripe webhooks',
  'Scale & Resource Requirements: 2 vCPU, 4 GB RAM',
  'Cloud Specifications:',
  '- Provider: AWS',
  '- Compute: t3.medium',
  '- Storage: 50 GB gp3',
  '- Networking: Public HTTPS only',
  '- Region: eu-west-1',
  'Required User Details: Domain name',
  'Generated on 2025-03-01',
  'User Secrets Configuration:',
  'DB_PASSWORD: required',
].join('\n');

/**
 * The fake planning server of the client tests. Tests set what it answers (`planningDb.requirements =
 * …`, `planningDb.stream = (call) => …`); `resetPlanningDb()` runs after each test (through resetDb).
 */
const NO_INSPECTION: ServerInspectionOffer = { target_kind: 'none', available: false, reason: 'No server is named yet.' };

export const planningDb = {
  requirements: { content: '', ready_to_continue: false } as RequirementsResponse,
  analysis: { message: NO_ANALYSIS_MESSAGE } as AnalysisResponse,
  secrets: [] as UserSecret[],
  savedSecrets: [] as SaveUserSecretBody[],
  /** Names whose save answers 500. */
  failingSecrets: new Set<string>(),
  architecturePlan: '',
  /** The verifier's findings GET /planning/architecture-plan answers with the plan (none: no field). */
  architectureFindings: undefined as PlanFinding[] | undefined,
  implementationPlan: '',
  threads: new Map<string, PlanningThreadResponse>(),
  repositories: { repositories: [], requires_permission_request: false, message: null } as RepositoriesResponse,
  branches: new Map<string, BranchesResponse['branches']>(),
  streamCalls: [] as StreamCall[],
  kills: 0,
  /** The stack model GET /planning/stack answers; POST /planning/stack/ops applies the shared operations to it. */
  stackModel: emptyStackModel() as StackModel,
  stackOps: [] as StackOp[][],
  /** What GET /planning/server-inspection offers, what its POST answers, and the commands posted (approved). */
  inspectionOffer: NO_INSPECTION as ServerInspectionOffer,
  inspectionResult: { status: 'failed', detail: 'not set by the test', not_read: [] } as ServerInspectionResult,
  inspectionsRun: [] as string[],
  /** The architecture plan's findings once an inspection ran (the server verifies the saved plan again). */
  findingsAfterInspection: undefined as PlanFinding[] | undefined,
  /** What a stream call answers; the default replies 'Hello there' on thread t-1. */
  stream: (_call: StreamCall): Response => sseResponse(sseText(replyEvents('Hello there'))),
};

export function resetPlanningDb(): void {
  planningDb.requirements = { content: '', ready_to_continue: false };
  planningDb.analysis = { message: NO_ANALYSIS_MESSAGE };
  planningDb.secrets = [];
  planningDb.savedSecrets = [];
  planningDb.failingSecrets = new Set();
  planningDb.architecturePlan = '';
  planningDb.architectureFindings = undefined;
  planningDb.implementationPlan = '';
  planningDb.threads = new Map();
  planningDb.repositories = { repositories: [], requires_permission_request: false, message: null };
  planningDb.branches = new Map();
  planningDb.streamCalls = [];
  planningDb.kills = 0;
  planningDb.stackModel = emptyStackModel();
  planningDb.stackOps = [];
  planningDb.inspectionOffer = NO_INSPECTION;
  planningDb.inspectionResult = { status: 'failed', detail: 'not set by the test', not_read: [] };
  planningDb.inspectionsRun = [];
  planningDb.findingsAfterInspection = undefined;
  planningDb.stream = () => sseResponse(sseText(replyEvents('Hello there')));
}

function stackAnswer(): StackResponse {
  const catalogue = Object.values(FAKE_CATALOGUE).map(({ id, label, category }) => ({ id, label, category }));
  return { model: planningDb.stackModel, catalogue, requirements: planningDb.requirements.content, ready_to_continue: planningDb.requirements.ready_to_continue };
}

const STREAM_PATHS: Record<StreamAgent, string> = {
  requirements: '/planning/requirements-gatherer',
  architect: '/planning/cloud-architect',
  implementation: '/planning/implementation-planner',
  analyzer: '/planning/analyzer',
};

export const planningHandlers = [
  ...(Object.entries(STREAM_PATHS) as Array<[StreamAgent, string]>).map(([agent, path]) =>
    http.post(api(path), async ({ request }) => {
      const call: StreamCall = {
        agent,
        body: (await request.json()) as Record<string, unknown>,
        headers: { installationId: request.headers.get('Installation-Id'), projectId: request.headers.get('Project-Id') },
      };
      planningDb.streamCalls.push(call);
      return planningDb.stream(call);
    }),
  ),
  http.post<never, never, KillResponse>(api('/planning/requirements-gatherer/kill'), () => {
    planningDb.kills += 1;
    return HttpResponse.json({ status: 'stopped' });
  }),
  http.get<never, never, StackResponse>(api('/planning/stack'), () => HttpResponse.json(stackAnswer())),
  http.post<never, StackOpsBody, StackResponse | ErrorResponse>(api('/planning/stack/ops'), async ({ request }) => {
    const { ops } = (await request.json()) as { ops: StackOp[] };
    planningDb.stackOps.push(ops);
    try {
      planningDb.stackModel = applyStackOps(planningDb.stackModel, ops, FAKE_CATALOGUE);
    } catch (err) {
      if (err instanceof StackOpError) return HttpResponse.json({ detail: err.message }, { status: 400 });
      throw err;
    }
    return HttpResponse.json(stackAnswer());
  }),
  http.get<never, never, ServerInspectionOffer>(api('/planning/server-inspection'), () => HttpResponse.json(planningDb.inspectionOffer)),
  http.post<never, ServerInspectionBody, ServerInspectionResult | ErrorResponse>(api('/planning/server-inspection'), async ({ request }) => {
    const { command } = await request.json();
    if (command !== planningDb.inspectionOffer.command) return HttpResponse.json({ detail: 'The inspection command is not the one offered now' }, { status: 409 });
    planningDb.inspectionsRun.push(command);
    if (planningDb.inspectionResult.status === 'completed' && planningDb.findingsAfterInspection) planningDb.architectureFindings = planningDb.findingsAfterInspection;
    return HttpResponse.json(planningDb.inspectionResult);
  }),
  http.get<never, never, RequirementsResponse>(api('/planning/requirements'), () => HttpResponse.json(planningDb.requirements)),
  http.get<never, never, AnalysisResponse>(api('/planning/analysis'), () => HttpResponse.json(planningDb.analysis)),
  http.get<never, never, UserSecretsResponse>(api('/planning/requirements/user-secrets'), () =>
    HttpResponse.json({ secrets: planningDb.secrets }),
  ),
  http.post<never, SaveUserSecretBody, SaveUserSecretResponse | ErrorResponse>(
    api('/planning/requirements/user-secrets'),
    async ({ request }) => {
      const body = await request.json();
      if (planningDb.failingSecrets.has(body.name)) return HttpResponse.json({ detail: 'Could not store it' }, { status: 500 });
      planningDb.savedSecrets.push(body);
      planningDb.secrets = planningDb.secrets.map((secret) => (secret.name === body.name ? { ...secret, provided: true } : secret));
      return HttpResponse.json({
        secrets_status: planningDb.secrets.map(({ name, description, required, provided }) => ({ name, description, required, provided })),
      });
    },
  ),
  http.get<never, never, PlanResponse>(api('/planning/architecture-plan'), () =>
    HttpResponse.json({ plan: planningDb.architecturePlan, ...(planningDb.architectureFindings ? { findings: planningDb.architectureFindings } : {}) }),
  ),
  http.get<never, never, PlanResponse>(api('/planning/implementation-plan'), () =>
    HttpResponse.json({ plan: planningDb.implementationPlan }),
  ),
  http.get<{ agent: string }, never, PlanningThreadResponse>(api('/planning/threads/:agent'), ({ params }) =>
    HttpResponse.json(planningDb.threads.get(params.agent) ?? { thread_id: null, model: 'offline-planner', messages: [] }),
  ),
  http.get<never, never, RepositoriesResponse>(api('/github/repositories'), () => HttpResponse.json(planningDb.repositories)),
  http.get<never, never, BranchesResponse | ErrorResponse>(api('/planning/repository/branches'), ({ request }) => {
    const name = new URL(request.url).searchParams.get('repo_full_name') ?? '';
    const branches = planningDb.branches.get(name);
    return branches ? HttpResponse.json({ branches }) : HttpResponse.json({ detail: 'Repository not found' }, { status: 404 });
  }),
];

export type { AnalyzerBody };
