import Fastify from 'fastify';
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import * as activity from '../../../src/shared/api/activity';
import * as costs from '../../../src/shared/api/costs';
import * as credits from '../../../src/shared/api/credits';
import * as devopsHelper from '../../../src/shared/api/devopsHelper';
import * as documentation from '../../../src/shared/api/documentation';
import * as execution from '../../../src/shared/api/execution';
import * as payments from '../../../src/shared/api/payments';
import * as planning from '../../../src/shared/api/planning';
import * as repositories from '../../../src/shared/api/repositories';
import * as sandbox from '../../../src/shared/api/sandbox';
import * as terminal from '../../../src/shared/api/terminal';
import * as validation from '../../../src/shared/api/validation';
import * as events from '../../../src/shared/events';
import {
  activityLevel,
  containerDisplayState,
  creditAmountError,
  CREDIT_ERRORS,
  isDocumentationMissing,
  lastBackupText,
  projectFolderZipName,
  SECRET_MESSAGES,
} from '../../../src/shared/constants';

const modules = {
  activity,
  costs,
  credits,
  devopsHelper,
  documentation,
  execution,
  payments,
  planning,
  repositories,
  sandbox,
  terminal,
  validation,
  events,
};

/** TypeBox 1.x marks the schemas it builds with a `~kind` key; plain constant objects have none. */
const isTypeBoxSchema = (value: unknown): value is TSchema =>
  Type.IsSchema(value) && typeof value === 'object' && value !== null && '~kind' in value;

const schemasOf = (mod: Record<string, unknown>): [string, TSchema][] =>
  Object.entries(mod).filter((entry): entry is [string, TSchema] => isTypeBoxSchema(entry[1]));

const ok = (schema: TSchema, value: unknown): boolean => Value.Check(schema, value);

const NOW = '2025-03-01T12:00:00.000Z';

const repository = {
  id: 1,
  name: 'shop',
  full_name: 'alice/shop',
  description: null,
  private: false,
  language: 'TypeScript',
  stargazers_count: 3,
  updated_at: NOW,
  default_branch: 'main',
};

const step = {
  step_number: 1,
  status: 'waiting_approval',
  command: 'docker compose up -d',
  prompt: 'Start the stack',
  description: '',
  output: null,
  error_message: null,
};

describe('every exported schema compiles', () => {
  it.each(Object.entries(modules))('%s', (_name, mod) => {
    const schemas = schemasOf(mod as Record<string, unknown>);
    expect(schemas.length).toBeGreaterThan(0);
    for (const [, schema] of schemas) expect(() => Compile(schema)).not.toThrow();
  });

  it("compiles with Fastify's ajv as request schemas and with fast-json-stringify as responses", async () => {
    const app = Fastify();
    let n = 0;
    for (const mod of Object.values(modules)) {
      for (const [, schema] of schemasOf(mod as Record<string, unknown>)) {
        app.post(`/r${n++}`, { schema: { body: schema, response: { 200: schema } } }, async () => ({}));
      }
    }
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });
});

describe('credits', () => {
  it('accepts a transaction and refuses an unknown type', () => {
    const t = { id: 1, transaction_type: 'add', amount: 10, payment_method: 'dodo', status: 'completed', created_at: NOW };
    expect(ok(credits.Transaction, t)).toBe(true);
    expect(ok(credits.Transaction, { ...t, description: 'Top-up' })).toBe(true);
    expect(ok(credits.Transaction, { ...t, transaction_type: 'gift' })).toBe(false);
    expect(ok(credits.TransactionList, [t])).toBe(true);
  });

  it('bounds the payment amount to $1..$10,000 and refuses extra fields', () => {
    expect(ok(credits.CreatePaymentBody, { amount: 25 })).toBe(true);
    expect(ok(credits.CreatePaymentBody, { amount: 0.5 })).toBe(false);
    expect(ok(credits.CreatePaymentBody, { amount: 10_001 })).toBe(false);
    expect(ok(credits.CreatePaymentBody, { amount: '25' })).toBe(false);
    expect(ok(credits.CreatePaymentBody, { amount: 25, user_id: 2 })).toBe(false);
  });

  it('the amount rule gives the spec texts', () => {
    expect(creditAmountError('')).toBe(CREDIT_ERRORS.invalidAmount);
    expect(creditAmountError('0')).toBe(CREDIT_ERRORS.invalidAmount);
    expect(creditAmountError('0.5')).toBe('Minimum amount is $1');
    expect(creditAmountError('10000.01')).toBe('Maximum amount is $10,000');
    expect(creditAmountError('50')).toBeNull();
  });
});

describe('payments', () => {
  it('accepts a Dodo payment event with extra provider fields', () => {
    const body = {
      business_id: 'bus_1',
      type: 'payment.succeeded',
      timestamp: NOW,
      data: {
        payload_type: 'Payment',
        payment_id: 'pay_1',
        total_amount: 2500,
        currency: 'USD',
        metadata: { purchase_id: 'p_1', other: 'x' },
        customer: { email: 'a@example.com' },
      },
    };
    expect(ok(payments.DodoWebhookBody, body)).toBe(true);
    expect(ok(payments.DodoWebhookBody, { data: {} })).toBe(false);
    expect(ok(payments.DodoWebhookBody, { ...body, data: { ...body.data, total_amount: 25.5 } })).toBe(false);
  });
});

describe('planning', () => {
  it('chat bodies take message and thread_id only', () => {
    expect(ok(planning.RequirementsGathererBody, { message: '' })).toBe(true);
    expect(ok(planning.CloudArchitectBody, { message: 'Generate architecture plan', thread_id: 't-1' })).toBe(true);
    expect(ok(planning.ImplementationPlannerBody, {})).toBe(false);
    expect(ok(planning.ImplementationPlannerBody, { message: 'x', project_id: 9 })).toBe(false);
    expect(ok(planning.RequirementsGathererBody, { message: 'x'.repeat(20_001) })).toBe(false);
  });

  it('analyzer body: repository, renamed environment blocks, branch', () => {
    const body = {
      repository_data: repository,
      environment_configs: [{ name: 'environment1', description: 'Production', content: 'A=1' }],
      branch: 'main',
    };
    expect(ok(planning.AnalyzerBody, body)).toBe(true);
    expect(ok(planning.AnalyzerBody, { ...body, environment_configs: [] })).toBe(true);
    expect(ok(planning.AnalyzerBody, { ...body, environment_configs: [{ name: 'prod', description: '', content: '' }] })).toBe(false);
    expect(ok(planning.AnalyzerBody, { ...body, repository_data: { ...repository, full_name: '../etc' } })).toBe(false);
  });

  it('analysis answer is an analysis or the no-analysis message', () => {
    const analysis = {
      repository: { full_name: 'alice/shop', language: null, default_branch: 'main', private: true, description: null },
      repo_analysis: { technology_stack: { language: 'TypeScript', databases: ['PostgreSQL'] } },
      environment: { env_content_summary: null },
      user_questions: { reason: 'Need a domain', questions: { 'Which domain?': '' } },
      deployment_plan: { prerequisites: [], deployment_steps: ['docker compose up'], post_deployment: [], scaling_considerations: [] },
      analysis: '# Analysis',
      message: 'Analysis found',
    };
    expect(ok(planning.AnalysisResponse, analysis)).toBe(true);
    expect(ok(planning.AnalysisResponse, { message: 'No analysis found for this project' })).toBe(true);
    expect(ok(planning.AnalysisResponse, { message: 'something else' })).toBe(false);
    expect(planning.hasAnalysis(analysis as planning.AnalysisResponse)).toBe(true);
    expect(planning.hasAnalysis({ message: 'No analysis found for this project' })).toBe(false);
  });

  it('user secrets: save needs an env-style name and a non-blank value', () => {
    expect(ok(planning.SaveUserSecretBody, { name: 'DO_TOKEN', value: 'abc' })).toBe(true);
    expect(ok(planning.SaveUserSecretBody, { name: 'DO_TOKEN', value: '   ' })).toBe(false);
    expect(ok(planning.SaveUserSecretBody, { name: 'DO TOKEN', value: 'abc' })).toBe(false);
    expect(ok(planning.SaveUserSecretBody, { name: 'DO_TOKEN', value: 'abc', provided: true })).toBe(false);
    expect(
      ok(planning.UserSecretsResponse, {
        secrets: [{ name: 'DO_TOKEN', description: 'DigitalOcean', required: true, provided: false, secret_type: 'password' }],
      }),
    ).toBe(true);
    expect(SECRET_MESSAGES.partiallySaved(2, 1)).toBe('Saved 2 secrets, 1 failed');
  });

  it('plans are { plan: string }', () => {
    expect(ok(planning.ArchitecturePlanResponse, { plan: '' })).toBe(true);
    expect(ok(planning.ImplementationPlanResponse, { plan: null })).toBe(false);
    expect(ok(planning.KillResponse, { status: 'stopped' })).toBe(true);
  });
});

describe('repositories', () => {
  it('lists repositories and checks the branches query', () => {
    expect(ok(repositories.RepositoriesResponse, { repositories: [repository], requires_permission_request: false, message: null })).toBe(true);
    expect(ok(repositories.BranchesQuery, { repo_full_name: 'alice/shop' })).toBe(true);
    expect(ok(repositories.BranchesQuery, { repo_full_name: 'alice' })).toBe(false);
    expect(ok(repositories.BranchesResponse, { branches: [{ name: 'main', protected: true, commit_sha: 'abc123' }] })).toBe(true);
  });
});

describe('sandbox', () => {
  it('provisioning and container statuses are closed sets', () => {
    expect(ok(sandbox.SandboxStatusResponse, { status: 'CREATING' })).toBe(true);
    expect(ok(sandbox.SandboxStatusResponse, { status: 'BOOTING' })).toBe(false);
    expect(ok(sandbox.SandboxInitializeBody, {})).toBe(true);
    expect(ok(sandbox.SandboxInitializeBody, { image: 'evil' })).toBe(false);
    expect(ok(sandbox.ContainerStatusResponse, { container_status: 'Running', username: 'user_1_2', last_sync_time: null })).toBe(true);
    expect(ok(sandbox.ContainerStatusResponse, { container_status: 'running', username: 'u', last_sync_time: null })).toBe(false);
  });

  it('backup may carry an error', () => {
    expect(ok(sandbox.SandboxBackupResponse, { status: 'error', last_sync_time: null, error: 'disk full' })).toBe(true);
    expect(ok(sandbox.SandboxHistoryResponse, { commits: [{ sha: 'abc1234', message: 'Step 1', step_number: 1, command: 'ls', created_at: NOW }] })).toBe(true);
  });

  it('folder download stays inside a workspace', () => {
    const q = (path: string): boolean => ok(sandbox.FolderDownloadQuery, { path });
    expect(q('/home/user_1_2/workspace/')).toBe(true);
    expect(q('/home/user_1_2/workspace/terraform/main.tf')).toBe(true);
    expect(q('/home/user_1_2/workspace/../../etc')).toBe(false);
    expect(q('/etc/passwd')).toBe(false);
  });

  it('display helpers', () => {
    expect(containerDisplayState('Terminated')).toBe('stopped');
    expect(containerDisplayState('Waiting')).toBe('pending');
    expect(containerDisplayState('Exploded')).toBe('unknown');
    const now = new Date(NOW);
    expect(lastBackupText(null, now)).toBe('Never backed up');
    expect(lastBackupText('2025-03-01T11:59:30.000Z', now)).toBe('Just now');
    expect(lastBackupText('2025-03-01T11:15:00.000Z', now)).toBe('45 minutes ago');
    expect(lastBackupText('2025-02-28T10:00:00.000Z', now)).toBe('Yesterday');
    expect(lastBackupText('2025-02-25T10:00:00.000Z', now)).toBe('4 days ago');
    expect(projectFolderZipName('user_1_2')).toBe('user_1_2.zip');
  });
});

describe('execution', () => {
  it('progress with steps', () => {
    expect(ok(execution.ExecutionProgress, { id: 3, currentStep: 1, totalSteps: 1, steps: [step] })).toBe(true);
    expect(ok(execution.ExecutionProgress, { id: null, currentStep: 0, totalSteps: 0, steps: [] })).toBe(true);
    expect(ok(execution.ExecutionProgress, { id: 3, currentStep: 1, totalSteps: 1, steps: [{ ...step, status: 'done' }] })).toBe(false);
    expect(ok(execution.Step, { ...step, status: 'rejected', dangerous_reason: 'rm -rf' })).toBe(true);
  });

  it('approve-step needs plan_id, step_number and approved', () => {
    expect(ok(execution.ExecutionApproveStepBody, { plan_id: 3, step_number: 1, approved: true })).toBe(true);
    expect(ok(execution.ExecutionApproveStepBody, { plan_id: 3, approved: true })).toBe(false);
    expect(ok(execution.ExecutionApproveStepBody, { plan_id: 3, step_number: 0, approved: true })).toBe(false);
    expect(ok(execution.ExecutionApproveStepBody, { plan_id: 3, step_number: 1, approved: 'yes' })).toBe(false);
  });

  it('trigger and agent query', () => {
    expect(ok(execution.ExecutionTriggerBody, { message: 'Start execution' })).toBe(true);
    expect(ok(execution.ExecutionTriggerBody, {})).toBe(false);
    expect(ok(execution.ExecutionAgentQuery, { message: 'status?' })).toBe(true);
    expect(ok(execution.ExecutionAgentQuery, { message: 'x'.repeat(8_001) })).toBe(false);
  });
});

describe('terminal', () => {
  it('command events', () => {
    expect(ok(terminal.TerminalCommandEvent, { command: 'ls' })).toBe(true);
    expect(ok(terminal.TerminalCommandEvent, { command: 'ls', simulate_typing: true, typing_speed: 50 })).toBe(true);
    expect(ok(terminal.TerminalCommandEvent, { simulate_typing: true })).toBe(false);
    expect(ok(terminal.TerminalOutputEvent, { step_number: 1, output: 'hi' })).toBe(true);
    expect(ok(terminal.TerminalEndEvent, { step_number: 1, status: 'failed', error_message: 'Cancelled' })).toBe(true);
    expect(ok(terminal.TerminalEndEvent, { step_number: 1, status: 'running', error_message: null })).toBe(false);
  });
});

describe('validation', () => {
  it('trigger body is optional message only', () => {
    expect(ok(validation.ValidationTriggerBody, {})).toBe(true);
    expect(ok(validation.ValidationTriggerBody, { message: 'go' })).toBe(true);
    expect(ok(validation.ValidationTriggerBody, { message: 'go', stage: 9 })).toBe(false);
  });

  it('plan, progress and approve-step', () => {
    expect(ok(validation.ValidationPlanResponse, { status: 'ready', plan: '# Plan' })).toBe(true);
    expect(ok(validation.ValidationPlanResponse, { status: 'ready' })).toBe(false);
    expect(ok(validation.ValidationProgress, { steps: [step] })).toBe(true);
    expect(ok(validation.ValidationApproveStepBody, { step_number: 2, approved: false })).toBe(true);
    expect(ok(validation.ValidationApproveStepBody, { approved: false })).toBe(false);
    expect(ok(validation.ValidationAgentQuery, { message: 'Create a validation plan', thread_id: 't' })).toBe(true);
  });
});

describe('documentation', () => {
  it('current documentation with any key-value data', () => {
    const doc = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: { port: 80, db: { host: 'db' } } };
    expect(ok(documentation.DocumentationResponse, doc)).toBe(true);
    expect(ok(documentation.DocumentationResponse, { ...doc, key_value_data: [] })).toBe(false);
    expect(ok(documentation.DocumentationGenerateBody, { message: 'Generate detailed documentation of the current infrastructure' })).toBe(true);
    expect(isDocumentationMissing('No documentation found.')).toBe(true);
    expect(isDocumentationMissing('# Docs')).toBe(false);
  });
});

describe('devopsHelper', () => {
  it('chat and approval bodies', () => {
    expect(ok(devopsHelper.DevopsHelperChatBody, { message: 'disk usage?' })).toBe(true);
    expect(ok(devopsHelper.ApprovalBody, { approval_id: 'a1', approved: true })).toBe(true);
    expect(ok(devopsHelper.ApprovalBody, { approval_id: 'a1' })).toBe(false);
    expect(ok(devopsHelper.ApprovalBody, { approval_id: 'a1', approved: true, command: 'rm -rf /' })).toBe(false);
  });
});

describe('costs', () => {
  it('project costs are a decimal string, token usage a number with a breakdown', () => {
    expect(ok(costs.ProjectCostsResponse, { total_cost: '0.0123', last_updated: NOW })).toBe(true);
    expect(ok(costs.ProjectCostsResponse, { total_cost: 0.0123, last_updated: null })).toBe(false);
    expect(
      ok(costs.TokenUsageResponse, {
        total_cost: 0.5,
        breakdown: [{ agent: 'requirementsAgent', model: 'offline', input_tokens: 10, output_tokens: 5, cost: 0.00015 }],
      }),
    ).toBe(true);
  });
});

describe('activity', () => {
  it('timeline query bounds limit to 1..200', () => {
    expect(ok(activity.ActivityTimelineQuery, {})).toBe(true);
    expect(ok(activity.ActivityTimelineQuery, { limit: 200, offset: 0 })).toBe(true);
    expect(ok(activity.ActivityTimelineQuery, { limit: 0 })).toBe(false);
    expect(ok(activity.ActivityTimelineQuery, { limit: 201 })).toBe(false);
  });

  // Over real HTTP rather than app.inject, which loads the ESM-only `cookie` package this jest setup
  // does not transform.
  it('Fastify coerces query strings and fills defaults', async () => {
    const app = Fastify();
    app.get('/t', { schema: { querystring: activity.ActivityTimelineQuery } }, async (req) => req.query);
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const coerced = await fetch(`${base}/t?limit=20`);
      expect(await coerced.json()).toEqual({ limit: 20, offset: 0 });
      expect((await fetch(`${base}/t?limit=500`)).status).toBe(400);
      expect((await fetch(`${base}/t?limit=abc`)).status).toBe(400);
    } finally {
      await app.close();
    }
  });

  it('answers', () => {
    expect(ok(activity.ActivityGridResponse, { activities: [{ date: '2025-03-01', count: 2 }] })).toBe(true);
    expect(ok(activity.ActivityGridResponse, { activities: [{ date: 'March 1', count: 2 }] })).toBe(false);
    expect(
      ok(activity.ActivityTimelineResponse, {
        activities: [{ id: 1, activity_type: 'PROJECT_WORKFLOW_COMPLETED', activity_data: { project_name: 'shop', extra: 1 }, created_at: NOW }],
      }),
    ).toBe(true);
    expect(ok(activity.ActivityStatsResponse, { total_activities: 4, current_streak: 2 })).toBe(true);
    expect([0, 1, 3, 4, 9].map(activityLevel)).toEqual([0, 1, 3, 4, 4]);
  });
});

describe('events', () => {
  it('stream events', () => {
    expect(ok(events.StreamEvent, { event: 'on_chat_model_end', thread_id: 't-1' })).toBe(true);
    expect(ok(events.StreamEvent, { event: 'on_chat_model_stream', thread_id: 't-1', chunk: { content: 'Hi' } })).toBe(true);
    expect(ok(events.StreamEvent, { event: 'on_chat_model_stream', chunk: { content: 'Hi' } })).toBe(false);
    expect(events.isStreamEnd({ event: events.STREAM_EVENTS.end })).toBe(true);
  });

  it('terminal socket frames', () => {
    expect(ok(events.TerminalClientMessage, { type: 'input', input: 'ls\r' })).toBe(true);
    expect(ok(events.TerminalClientMessage, { type: 'resize', rows: 24, cols: 80 })).toBe(true);
    expect(ok(events.TerminalClientMessage, { type: 'resize', rows: 24, cols: 1 })).toBe(false);
    expect(ok(events.TerminalClientMessage, { type: 'pause' })).toBe(true);
    expect(ok(events.TerminalClientMessage, { type: 'exec', input: 'ls' })).toBe(false);
    expect(ok(events.TerminalClientMessage, { type: 'input', input: 'ls', sudo: true })).toBe(false);
    expect(ok(events.TerminalServerMessage, { type: 'output', data: '$ ' })).toBe(true);
  });

  it('approval socket frames', () => {
    expect(ok(events.ApprovalClientMessage, { type: 'ping' })).toBe(true);
    expect(ok(events.ApprovalClientMessage, { type: 'approve', id: 'a1' })).toBe(false);
    expect(ok(events.ApprovalServerMessage, { type: 'approval_request', id: 'a1', command: 'df -h' })).toBe(true);
    expect(ok(events.ApprovalServerMessage, { type: 'pong' })).toBe(true);
    expect(ok(events.ApprovalServerMessage, { type: 'approval_request', id: 'a1' })).toBe(false);
  });

  it('DevOps Helper stream frames', () => {
    expect(ok(events.DevopsHelperStreamFrame, { event: 'id', data: { thread_id: 't' } })).toBe(true);
    expect(ok(events.DevopsHelperStreamFrame, { event: 'message', data: { event: 'on_chat_model_stream', thread_id: 't', chunk: { content: 'a' } } })).toBe(true);
    expect(ok(events.DevopsHelperStreamFrame, { event: 'error', data: { detail: 'boom' } })).toBe(true);
    expect(ok(events.DevopsHelperStreamFrame, { event: 'data', data: { event: 'on_chat_model_end', thread_id: 't' } })).toBe(true);
    expect(ok(events.DevopsHelperStreamFrame, { event: 'error', data: 'boom' })).toBe(false);
  });
});
