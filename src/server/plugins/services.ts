import fp from 'fastify-plugin';
import type { AppConfig } from '../config';
import type { Database } from '../db/client';
import { createAuthService, type AuthService } from '../services/auth/authService';
import { createSessionStore, type SessionStore } from '../services/auth/sessionStore';
import { createCostsService, type CostsService } from '../services/costs/costsService';
import { createDodoCheckout, createLocalCheckout } from '../services/credits/checkoutProvider';
import { createCreditsLedger, type CreditsLedger } from '../services/credits/ledger';
import { createMeter, type Meter } from '../services/credits/meter';
import { createPaymentsService, type PaymentsService } from '../services/credits/paymentsService';
import { createProjectsService, type ProjectsService } from '../services/projects/projectsService';
import { createPlanningService, type PlanningService } from '../services/planning/planningService';
import { createSecretBox, loadSecretKey } from '../services/planning/secretBox';
import { createModelProvider } from '../agents/models';
import { createSandboxService, type SandboxService } from '../services/sandbox/sandboxService';
import { createGithubRepositories } from '../services/repositories/githubRepositories';
import { createLocalRepositories } from '../services/repositories/localRepositories';
import { createRepositoryService, type RepositoryService } from '../services/repositories/repositoryService';
import { createTerminalSessions, type TerminalSessions } from '../services/terminal/terminalSessions';
import { createSandboxDriver } from '../sandbox';

export interface Services {
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
    const credits = createCreditsLedger({ db, signupCreditUsd: opts.config.payments.signupCreditUsd });
    const checkout = opts.config.payments.dodo ? createDodoCheckout(opts.config.payments.dodo) : createLocalCheckout();
    const sandboxDriver = createSandboxDriver(opts.config.sandbox);
    const planning = createPlanningService({
      db,
      models: createModelProvider(opts.config.planning.models),
      secretBox: createSecretBox(loadSecretKey(opts.config.planning.encryptionKey, opts.config.dataDir)),
    });
    const repositorySource = opts.config.github
      ? createGithubRepositories(opts.config.github)
      : createLocalRepositories(opts.config.planning.localReposDir);
    app.decorate('config', opts.config);
    app.decorate('database', opts.database);
    app.decorate('services', {
      auth: createAuthService({ db }),
      sessions: createSessionStore(db, { idleMs: opts.config.sessionIdleMs, absoluteMs: opts.config.sessionAbsoluteMs }),
      projects: createProjectsService({ db }),
      costs: createCostsService({ db }),
      sandbox: createSandboxService({ db, driver: sandboxDriver }),
      terminals: createTerminalSessions(sandboxDriver, { graceMs: opts.config.sandbox.terminalGraceMs }),
      credits,
      meter: createMeter({ db, ledger: credits, pricing: opts.config.pricing }),
      payments: createPaymentsService({ db, ledger: credits, checkout, publicUrl: opts.config.publicUrl, log: app.log }),
      planning,
      repositories: createRepositoryService({ source: repositorySource, planning }),
    });
    app.addHook('onClose', async () => {
      app.services.terminals.close();
      await app.services.sandbox.close();
    });
  },
  { name: 'services' },
);
