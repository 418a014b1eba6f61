import type { Db } from '../db/client';
import type { EventBus } from './events/eventBus';
import type { ModelProvider } from '../agents/models';
import type { Meter } from './credits/meter';
import { createApprovals } from './devopsHelper/approvals';
import { createDevopsHelperAgent } from './devopsHelper/devopsHelperAgent';
import { createDocumentationAgent } from './documentation/documentationAgent';
import type { DocumentationService } from './documentation/documentationService';
import { createExecutionAgent } from './execution/executionAgent';
import type { ExecutionService } from './execution/executionService';
import type { PlanningService } from './planning/planningService';
import type { SandboxService } from './sandbox/sandboxService';
import { createValidationAgent } from './validation/validationAgent';
import type { ValidationService } from './validation/validationService';

/** An approval request nobody answers within this long expires and never runs. */
const APPROVAL_TTL_MS = 10 * 60_000;

export interface AgentsDeps {
  db: Db;
  models: ModelProvider;
  meter: Meter;
  planning: Pick<PlanningService, 'secretValues' | 'hiddenValues' | 'plan'>;
  sandbox: SandboxService;
  execution: ExecutionService;
  validation: ValidationService;
  documentation: DocumentationService;
  /** The app's event bus: approval requests and decisions cross replicas. */
  events?: EventBus<unknown>;
}

/**
 * The agents beside the planning service's, built once by the composition root (plugins/services.ts)
 * on the one model provider; routes only route to them.
 */
export function createAgents(deps: AgentsDeps) {
  const { db, models, meter, execution, validation, documentation } = deps;
  // The stage agents only redact with these: the secrets, never a host or a port the person wrote.
  const secretValues = (projectId: number): Promise<Record<string, string>> => deps.planning.hiddenValues(projectId);
  const approvals = createApprovals({ ttlMs: APPROVAL_TTL_MS, ...(deps.events ? { events: deps.events } : {}) });
  return {
    execution: createExecutionAgent({ db, models, execution, secretValues, meter }),
    validation: createValidationAgent({
      db,
      models,
      execution,
      validation,
      secretValues,
      meter,
      implementationPlan: async (projectId) => (await deps.planning.plan(projectId, 'implementation')).plan,
    }),
    documentation: createDocumentationAgent({ db, models, documentation, secretValues, meter }),
    /** The DevOps Helper's command approvals (its route's socket and decisions). */
    approvals,
    devopsHelper: createDevopsHelperAgent({ db, models, approvals, sandbox: deps.sandbox, secretValues: (projectId) => deps.planning.secretValues(projectId), hiddenValues: secretValues, meter }),
  };
}

export type Agents = ReturnType<typeof createAgents>;
