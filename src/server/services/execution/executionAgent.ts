import type { Db } from '../../db/client';
import type { ModelProvider } from '../../agents/models';
import { EXECUTION_TOOLS } from '../../agents/toolNames';
import { createTurnSession, NO_STATE, type TurnMeter } from '../../agents/turnSession';
import { toEdits } from '../steps/commandEdits';
import type { ExecutionService } from './executionService';

/** The agent id token usage is recorded under (ARCHITECTURE.md stage agents). */
export const EXECUTION_AGENT_ID = 'executionAgent';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: EXECUTION_TOOLS.updateStep,
      description:
        'Propose a change to a step that is not running. Change only what the person asked: prefer `edits` (each replaces one exact piece of the current command, quoted from it, keeping every other line); give `command` only to replace the whole command. The person sees the difference and saves or discards it; a saved step waits for approval again.',
      parameters: {
        type: 'object',
        properties: {
          step_number: { type: 'integer', minimum: 1 },
          edits: {
            type: 'array',
            description: 'Exact pieces of the current command and what each becomes ("" removes it; an empty find appends lines).',
            items: { type: 'object', properties: { find: { type: 'string' }, replace: { type: 'string' } }, required: ['find', 'replace'] },
          },
          command: { type: 'string', description: 'The whole new command (only when the person asked to replace all of it).' },
          description: { type: 'string' },
          prompt: { type: 'string' },
          reason: { type: 'string', description: 'What the person asked, in their words.' },
        },
        required: ['step_number'],
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: EXECUTION_TOOLS.addStep,
      description: 'Append a step with its exact shell command; it waits for approval. Reference User Secrets as environment variables.',
      parameters: {
        type: 'object',
        properties: { description: { type: 'string' }, prompt: { type: 'string' }, command: { type: 'string' } },
        required: ['description', 'command'],
      },
    },
  },
];

export interface ExecutionAgentDeps {
  db: Db;
  /** The execution agent answers with the implementation planner's model (the plan's author). */
  models: ModelProvider;
  execution: Pick<ExecutionService, 'steps' | 'proposeChange' | 'addStep'>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  meter: TurnMeter;
}

/** The last this many characters of a step's output go into the agent's context. */
const OUTPUT_CONTEXT = 4000;

/**
 * The execution agent, on the one turn session (agents/turnSession.ts): its system prompt carries the run's steps, so it answers
 * questions about the run and may change or add steps (a changed step waits for approval again).
 */
export function createExecutionAgent(deps: ExecutionAgentDeps) {
  const { execution } = deps;
  return createTurnSession({
    db: deps.db,
    model: () => deps.models.forAgent('implementation'),
    prepare: NO_STATE,
    usageAgent: EXECUTION_AGENT_ID,
    threadAgent: 'execution',
    tools: TOOLS,
    defaultMessage: 'How is the execution going?',
    hiddenValues: deps.secretValues,
    meter: deps.meter,
    async systemPrompt({ project: { projectId } }) {
      const { steps } = await execution.steps(projectId);
      const view = steps.map((s) => ({ ...s, output: s.output && s.output.length > OUTPUT_CONTEXT ? s.output.slice(-OUTPUT_CONTEXT) : s.output }));
      return [
        'Role: execution',
        'You are the execution agent of a DevOps deployment. The steps below run in the project sandbox only after the person approves each one. Answer questions about the run (status, why a step failed, from its output and error). When asked to change a step, call update_step with edits of exactly the parts the person named (every other line stays as it is); to add one, call add_step with the exact shell command; never run anything yourself and never print secret values.',
        `<execution_steps>\n${JSON.stringify(view)}\n</execution_steps>`,
      ].join('\n\n');
    },
    async runTool({ project: { projectId } }, { name, args }) {
      const a = args as { step_number?: number; command?: string; edits?: unknown; description?: string; prompt?: string; reason?: string };
      if (name === EXECUTION_TOOLS.updateStep && typeof a.step_number === 'number') {
        const step = await execution.proposeChange(projectId, a.step_number, {
          ...(a.edits !== undefined ? { edits: toEdits(a.edits) } : {}),
          ...(typeof a.command === 'string' ? { command: a.command } : {}),
          ...(typeof a.description === 'string' ? { description: a.description } : {}),
          ...(typeof a.prompt === 'string' ? { prompt: a.prompt } : {}),
          request: typeof a.reason === 'string' ? a.reason : '',
        });
        return `The change to step ${step.step_number} is proposed: the person reviews the difference on the step card and saves or discards it.`;
      }
      if (name === EXECUTION_TOOLS.addStep && typeof a.command === 'string') {
        const step = await execution.addStep(projectId, { command: a.command, description: a.description ?? '', prompt: a.prompt ?? a.description ?? '' });
        return `Step ${step.step_number} added; it waits for approval.`;
      }
      return `Error: bad call of ${name}`;
    },
  });
}

export type ExecutionAgent = ReturnType<typeof createExecutionAgent>;
