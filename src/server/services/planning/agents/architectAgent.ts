import { badRequest } from '../../../errors';
import type { AgentTool } from '../../../agents/turnLoop';
import { TOOL_NAMES } from '../../../agents/toolNames';
import { block, type PlanningAgent, type PlanningWorkspace } from './planningAgent';
import { STACK_MODEL_TAG } from '../../../agents/offline/panelEdits';
import { isStackOpTool, PLAN_STACK_OP_INSTRUCTION, runStackOpTool, STACK_OP_AGENT_TOOLS } from './stackOpTools';

export const ARCHITECT_TOOLS: AgentTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAMES.architecture,
      description: 'Save the architecture plan as markdown: overview, a ```mermaid diagram, services, networking and security, the complete docker-compose.yml (images pinned to tags, healthchecks) and every file it mounts.',
      parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
    },
  },
];

/**
 * The Cloud Architect: designs a single-host compose deployment from the confirmed requirements and saves
 * the plan, which the verifier checks. A turn that ends without a saved plan is nudged once, then fails.
 */
export const architectAgent: PlanningAgent = {
  name: 'architect',
  usageAgent: 'cloudArchitectAgent',
  // A correction is an operation on the project's stack model (kept with the other chats' and the panel's), then the plan.
  tools: [...ARCHITECT_TOOLS, ...STACK_OP_AGENT_TOOLS],
  required: { tool: TOOL_NAMES.architecture, missing: 'no architecture plan was saved', exists: async ({ documents }, projectId) => Boolean((await documents.get(projectId, 'architecture'))?.content.trim()) },
  instructions: (context) => [
    'Role: architect',
    'You are a cloud architect. From the confirmed requirements, design a single-host docker-compose deployment and call save_architecture_plan with the complete plan (mermaid diagram, services, networking and security, the full docker-compose.yml with pinned images and healthchecks, every mounted file). Apply changes the person asks for and save the plan again.',
    PLAN_STACK_OP_INSTRUCTION,
    block('requirements_document', context.requirements),
    block(STACK_MODEL_TAG, context.stackModel),
    block('repository_analysis', context.analysis),
    block('architecture_plan', context.architecture),
    // What the inspection of the target server found: the plan avoids its ports and says what is in the way.
    block('server_facts', context.serverFacts),
  ],
  onStart: ({ verification }, project) => verification.startTurn(project.projectId, 'architecture'),
  async runTool(workspace, projectId, name, args) {
    if (isStackOpTool(name)) return runStackOpTool(workspace, projectId, name, args, 'architecture');
    if (name !== TOOL_NAMES.architecture) throw badRequest(`unknown tool ${name}`);
    return saveArchitecturePlan(workspace, projectId, args);
  },
};

/** Saves an architecture plan and answers its verification (the architect's tool, and the implementation planner's for a correction). */
export async function saveArchitecturePlan({ documents, verification }: PlanningWorkspace, projectId: number, args: Record<string, unknown>): Promise<string> {
  if (typeof args.plan !== 'string' || !args.plan.trim()) throw badRequest('plan must be the whole architecture plan');
  await documents.put(projectId, 'architecture', args.plan);
  return verification.verifyAndKeep(projectId, 'architecture', args.plan);
}
