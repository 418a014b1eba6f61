import fp from 'fastify-plugin';
import type { AppConfig } from '../config';
import type { Database } from '../db/client';
import { createAuthService, type AuthService } from '../services/auth/authService';
import { createSessionStore, type SessionStore } from '../services/auth/sessionStore';
import { createCostsService, type CostsService } from '../services/costs/costsService';
import { createProjectsService, type ProjectsService } from '../services/projects/projectsService';
import { createSandboxService, type SandboxService } from '../services/sandbox/sandboxService';
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
    const sandboxDriver = createSandboxDriver(opts.config.sandbox);
    app.decorate('config', opts.config);
    app.decorate('database', opts.database);
    app.decorate('services', {
      auth: createAuthService({ db }),
      sessions: createSessionStore(db, { idleMs: opts.config.sessionIdleMs, absoluteMs: opts.config.sessionAbsoluteMs }),
      projects: createProjectsService({ db }),
      costs: createCostsService({ db }),
      sandbox: createSandboxService({ db, driver: sandboxDriver }),
      terminals: createTerminalSessions(sandboxDriver, { graceMs: opts.config.sandbox.terminalGraceMs }),
    });
    app.addHook('onClose', async () => {
      app.services.terminals.close();
      await app.services.sandbox.close();
    });
  },
  { name: 'services' },
);
