import type { Db } from '../../db/client';
import type { ModelProvider } from '../../agents/models';
import { VALIDATION_TOOLS } from '../../agents/toolNames';
import { createTurnSession, NO_STATE, type TurnMeter } from '../../agents/turnSession';
import type { ExecutionService } from '../execution/executionService';
import type { ValidationService } from './validationService';

/** The agent id token usage is recorded under (ARCHITECTURE.md stage agents). */
export const VALIDATION_AGENT_ID = 'validationAgent';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: VALIDATION_TOOLS.savePlan,
      description:
        'Save the validation plan: markdown with "## Step N: title" sections, each with a description and a ```bash block of exact, read-only commands (test -f, terraform validate, docker compose config) that check what execution built. Nothing may change files, servers or cloud accounts.',
      parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
    },
  },
];

export interface ValidationAgentDeps {
  db: Db;
  models: ModelProvider;
  execution: Pick<ExecutionService, 'steps'>;
  validation: Pick<ValidationService, 'steps' | 'plan' | 'savePlan' | 'onPlanTurn'>;
  /** The implementation plan the executed steps came from (what was deployed, where, with which domain). */
  implementationPlan(projectId: number): Promise<string>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: TurnMeter;
}

const OUTPUT_CONTEXT = 2000;
const clip = <T extends { output: string | null }>(s: T): T => ({ ...s, output: s.output && s.output.length > OUTPUT_CONTEXT ? s.output.slice(-OUTPUT_CONTEXT) : s.output });

/**
 * The validation agent, on the one turn session (agents/turnSession.ts) and answering with the implementation planner's model: asked
 * with `VALIDATION.planPrompt`, it writes read-only checks of the executed steps and saves them as the
 * validation plan; otherwise it answers about the validation run. Its turns drive the plan's status.
 */
export function createValidationAgent(deps: ValidationAgentDeps) {
  const { execution, validation } = deps;
  return createTurnSession({
    db: deps.db,
    model: () => deps.models.forAgent('implementation'),
    prepare: NO_STATE,
    usageAgent: VALIDATION_AGENT_ID,
    threadAgent: 'validation',
    tools: TOOLS,
    defaultMessage: 'How is the validation going?',
    required: { tool: VALIDATION_TOOLS.savePlan, missing: 'no validation plan was saved', exists: async ({ projectId }) => (await validation.plan(projectId)).plan !== null },
    hiddenValues: deps.secretValues,
    meter: deps.meter,
    onTurn: ({ projectId }, phase) => validation.onPlanTurn(projectId, phase),
    async systemPrompt({ project: { projectId } }) {
      const [executed, validated, plan, implementation] = await Promise.all([
        execution.steps(projectId),
        validation.steps(projectId),
        validation.plan(projectId),
        deps.implementationPlan(projectId),
      ]);
      return [
        'Role: validation',
        'You are the validation agent of a DevOps deployment. Write validation plans of read-only checks that verify the running system the executed steps deployed, over SSH (`ssh -F ssh-keys/config da-server`, as the executed steps reach the server) and from outside: every service of the compose file runs and is healthy, the proxy answers on the server\'s address and on the domain when one is set, certificates are valid where TLS is promised, the firewall is as planned. A check must fail when the stack is down. Save the plan with save_validation_plan. Each step runs in the project sandbox only after the person approves it. Never change anything and never print secret values.',
        `<execution_steps>\n${JSON.stringify(executed.steps.map(clip))}\n</execution_steps>`,
        `<validation_steps>\n${JSON.stringify(validated.steps.map(clip))}\n</validation_steps>`,
        `<validation_plan>\n${plan.plan ?? ''}\n</validation_plan>`,
        `<implementation_plan>\n${implementation}\n</implementation_plan>`,
      ].join('\n\n');
    },
    async runTool({ project: { projectId } }, { name, args }) {
      if (name === VALIDATION_TOOLS.savePlan && typeof args.plan === 'string') {
        const count = await validation.savePlan(projectId, args.plan);
        return `Validation plan saved with ${count} steps.`;
      }
      return `Error: bad call of ${name}`;
    },
  });
}

export type ValidationAgent = ReturnType<typeof createValidationAgent>;
