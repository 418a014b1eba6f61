import fp from 'fastify-plugin';
import type { AppConfig } from '../config';
import type { Database } from '../db/client';
import { createActivityService, type ActivityService } from '../services/activity/activityService';
import { createAuthService, type AuthService } from '../services/auth/authService';
import { createSessionStore, type SessionStore } from '../services/auth/sessionStore';
import { createCostsService, type CostsService } from '../services/costs/costsService';
import { createDodoCheckout, createLocalCheckout } from '../services/credits/checkoutProvider';
import { createCreditsLedger, type CreditsLedger } from '../services/credits/ledger';
import { createMeter, type Meter } from '../services/credits/meter';
import { createPaymentsService, type PaymentsService } from '../services/credits/paymentsService';
import { createProjectsService, type ProjectsService } from '../services/projects/projectsService';
import { createStageGates } from '../services/stages/stageGates';
import { createPlanningService, type PlanningService } from '../services/planning/planningService';
import { createSecretBox, loadSecretKey } from '../services/userSecrets/secretBox';
import { createNotificationService, type NotificationService } from '../services/notifications/notificationService';
import { withNotices } from '../services/notifications/activityNotices';
import { backupStepRecorder } from '../services/backups/backupHook';
import { createBackupWatch } from '../services/backups/backupWatch';
import { createModelProvider } from '../agents/models';
import { createSandboxService, type SandboxService } from '../services/sandbox/sandboxService';
import { serverInstanceId } from '../services/sandbox/instanceId';
import { createGithubRepositories } from '../services/repositories/githubRepositories';
import { createLocalRepositories } from '../services/repositories/localRepositories';
import { createRepositoryService, type RepositoryService } from '../services/repositories/repositoryService';
import { createTerminalSessions, type TerminalSessions } from '../services/terminal/terminalSessions';
import { createSandboxDriver } from '../sandbox';
import { createInProcessEventBus, topicsOf, type EventBus } from '../services/events/eventBus';
import { createRedisEventBus } from '../services/events/redisEventBus';
import { createExecutionService, type ExecutionService } from '../services/execution/executionService';
import { createValidationService, type ValidationService } from '../services/validation/validationService';
import { createDocumentationService, type DocumentationService } from '../services/documentation/documentationService';
import type { TerminalStreamEvent } from '../../shared/api/terminal';
import { createAgents, type Agents } from '../services/agents';
import { createDiskSpace, type DiskSpace } from '../services/health/diskSpace';
import { createServerInspection, type ServerInspection } from '../services/serverInspection/serverInspection';
import { createReleaseService, type ReleaseService } from '../services/releases/releaseService';
import { scheduleDriftChecks } from '../services/releases/driftSchedule';

export interface Services {
  /** What happened in each installation: `activity.record(...)` where it happens (see activityService). */
  activity: ActivityService;
  auth: AuthService;
  sessions: SessionStore;
  projects: ProjectsService;
  costs: CostsService;
  /** The project sandboxes (driver chosen by SANDBOX_DRIVER). */
  sandbox: SandboxService;
  /** Terminal shells kept across socket drops. */
  terminals: TerminalSessions;
  /** The credit ledger of each installation (balance, history). */
  credits: CreditsLedger;
  /** Prices model calls and charges them: `meter.record(...)`, `meter.assertCanSpend(...)`. */
  meter: Meter;
  payments: PaymentsService;
  /** Planning agents, their documents and the user secrets (models chosen by configuration). */
  planning: PlanningService;
  /** The installation's repositories (LOCAL_REPOS_DIR, or the GitHub App's) and their analysis. */
  repositories: RepositoryService;
  /** The execution stage: steps from the implementation plan, approvals, runs, progress from memory. */
  execution: ExecutionService;
  /** Every event that crosses requests or replicas (in-process; Redis pub/sub when REDIS_URL is set). */
  events: EventBus<unknown>;
  /** Why the event bus cannot be relied on now (Redis away), or null; readiness answers 503 with it. */
  eventBusProblem(): string | null;
  /** Commands the execution agent runs, for the terminal's command stream (topics of `events`). */
  executionCommands: EventBus<TerminalStreamEvent>;
  /** The validation stage: the agent's plan of read-only checks, approvals, runs (the execution step runner). */
  validation: ValidationService;
  /** Where a project's failures are sent (email, webhook), and sending them. */
  notifications: NotificationService;
  /** Each project's documentation and quick start, written after validation. */
  documentation: DocumentationService;
  /** The read-only inspection of the person's existing server while planning (approved, run in the sandbox). */
  serverInspection: ServerInspection;
  /** The agents of the step stages and the DevOps Helper (with its approvals), on the models configured once. */
  agents: Agents;
  /** DATA_DIR's disk: a full disk in plain words (507) and readiness while space is short. */
  disk: DiskSpace;
  /** Releases of the deployed stack: recorded as deploys end, "Roll back" as a step, drift checks. */
  releases: ReleaseService;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: AppConfig;
    database: Database;
    services: Services;
  }
}

/** Builds every service once from configuration and the database; routes only call them. */
export const servicesPlugin = fp(
  async (app, opts: { config: AppConfig; database: Database }) => {
    const { db } = opts.database;
    // Redis pub/sub when replicas share the load (REDIS_URL), else this process only.
    const redisBus = opts.config.redisUrl ? await createRedisEventBus({ url: opts.config.redisUrl, log: app.log }) : null;
    const events: EventBus<unknown> = redisBus ?? createInProcessEventBus<unknown>();
    const sessions = createSessionStore(db, {
      idleMs: opts.config.sessionIdleMs,
      absoluteMs: opts.config.sessionAbsoluteMs,
      events: topicsOf<string>(events),
    });
    const secretBox = createSecretBox(loadSecretKey(opts.config.planning.encryptionKey, opts.config.dataDir));
    const notifications = createNotificationService({ db, config: opts.config.notifications, secretBox, publicUrl: opts.config.publicUrl, log: app.log });
    // Each failure recorded (a deployment step, a validation check) also reaches the person where they asked.
    const activity = withNotices(createActivityService({ db }), (projectId, notice) => notifications.notify(projectId, notice));
    const credits = createCreditsLedger({ db, signupCreditUsd: opts.config.payments.signupCreditUsd, events });
    const checkout = opts.config.payments.dodo ? createDodoCheckout(opts.config.payments.dodo) : createLocalCheckout(opts.config.payments.localTestCheckout);
    const sandboxDriver = await createSandboxDriver(opts.config.sandbox, app.log, await serverInstanceId(db));
    const costs = createCostsService({ db, events });
    const meter = createMeter({ ledger: credits, pricing: opts.config.pricing, costs });
    // The one model provider every agent answers with.
    const models = await createModelProvider(opts.config.planning.models);
    const planning = createPlanningService({
      db,
      models,
      secretBox,
      meter,
      events,
    });
    const repositorySource = opts.config.github
      ? createGithubRepositories(opts.config.github)
      : createLocalRepositories(opts.config.planning.localReposDir);
    const disk = createDiskSpace({ dataDir: opts.config.dataDir, minFreeBytes: opts.config.diskMinFreeBytes });
    const repositories = createRepositoryService({ source: repositorySource, planning });
    const terminals = createTerminalSessions(sandboxDriver, {
      graceMs: opts.config.sandbox.terminalGraceMs,
      secretsOf: (projectId) => planning.secretValues(projectId),
      hiddenOf: (projectId) => planning.hiddenValues(projectId),
    });
    const sandbox = createSandboxService({ db, driver: sandboxDriver, disk, shellsOpen: (id) => terminals.openIn(id), planOf: async (id) => (await planning.plan(id, 'implementation')).plan, filesOf: (id) => repositories.workspaceFiles(id), secretValues: (id) => planning.hiddenValues(id), events });
    const executionCommands = topicsOf<TerminalStreamEvent>(events);
    // A step that ran a backup or a restore drill records the run from its output (and a failed one notifies).
    const backupRecorder = backupStepRecorder({ db, notify: (projectId, notice) => notifications.notify(projectId, notice), log: app.log });
    // The release service appends roll backs to the execution plan, and hears of every step that ends there.
    const execution = createExecutionService({
      db,
      sandbox,
      planning,
      commands: executionCommands,
      events,
      activity,
      log: app.log,
      afterStepStored: (project, planId, step) => {
        releases.afterStepStored(project, planId, step);
        backupRecorder(project, planId, step);
      },
    });
    const releases = createReleaseService({ db, sandbox, hiddenValues: (id) => planning.hiddenValues(id), execution, notifier: notifications, commands: executionCommands, log: app.log });
    const driftSchedule = scheduleDriftChecks(opts.config.driftCheckMinutes, (minutes) => releases.checkDue(minutes), app.log);
    // The nightly backup runs from cron: its last result on the server is read on a timer of its own (the drift checks' kind).
    const backupWatch = createBackupWatch({
      db,
      sandbox,
      hiddenValues: (id) => planning.hiddenValues(id),
      notify: (projectId, notice) => notifications.notify(projectId, notice),
      log: app.log,
      scheduleOf: async (id) => {
        const { backup } = (await planning.stack(id)).model;
        return backup.enabled ? backup.schedule : undefined;
      },
      graceMinutes: opts.config.backupGraceMinutes,
    });
    const backupSchedule = scheduleDriftChecks(opts.config.backupWatchMinutes, (minutes) => backupWatch.checkDue(minutes), app.log);
    const validation = createValidationService({ db, sandbox, secrets: planning, commands: executionCommands, events, activity, log: app.log, afterStepStored: backupRecorder });
    const documentation = createDocumentationService({ db, sandbox, planning, execution, validation });
    const agents = createAgents({ db, models, meter, planning, sandbox, execution, validation, documentation, events });
    // Start-up recovery: runs a stopped process left running are marked interrupted…
    await execution.recoverInterrupted();
    await validation.recoverInterrupted();
    // …and from then on, steps left by a replica that stopped.
    execution.startSweep();
    validation.startSweep();
    app.decorate('config', opts.config);
    app.decorate('database', opts.database);
    app.decorate('services', {
      auth: createAuthService({ db }),
      sessions,
      activity,
      projects: createProjectsService({ db, activity, events, completionRefusal: createStageGates({ execution, validation }) }),
      costs,
      sandbox,
      terminals,
      credits,
      meter,
      payments: createPaymentsService({ db, ledger: credits, checkout, publicUrl: opts.config.publicUrl, log: app.log }),
      planning,
      repositories,
      execution,
      events,
      eventBusProblem: () => redisBus?.problem() ?? null,
      executionCommands,
      validation,
      documentation,
      serverInspection: createServerInspection({ planning, sandbox }),
      agents,
      disk,
      notifications,
      releases,
    });
    // last_seen_at is written in batches off the request path (see sessionStore).
    const flushSessions = setInterval(() => {
      sessions.flushLastSeen().catch((err: unknown) => app.log.warn({ err }, 'could not write sessions last_seen_at'));
    }, sessions.flushEveryMs);
    flushSessions.unref();
    app.addHook('preClose', async () => agents.approvals.close());
    app.addHook('onClose', async () => {
      clearInterval(flushSessions);
      await sessions.flushLastSeen().catch(() => undefined);
      sessions.close();
      await driftSchedule.stop();
      await backupSchedule.stop();
      await app.services.execution.close();
      await releases.idle();
      await app.services.validation.close();
      app.services.terminals.close();
      await app.services.sandbox.close();
      await redisBus?.close();
      notifications.close();
    });
  },
  { name: 'services' },
);
