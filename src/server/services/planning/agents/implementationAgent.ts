import { badRequest, conflict } from '../../../errors';
import type { AgentTool } from '../../../agents/turnLoop';
import { TOOL_NAMES } from '../../../agents/toolNames';
import { TURN_TEXTS } from '../../../../shared/constants/agents';
import { block, type PlanningAgent } from './planningAgent';
import { ARCHITECT_TOOLS, saveArchitecturePlan } from './architectAgent';
import { STACK_MODEL_TAG } from '../../../agents/offline/panelEdits';
import { isStackOpTool, PLAN_STACK_OP_INSTRUCTION, runStackOpTool, STACK_OP_AGENT_TOOLS } from './stackOpTools';

export const IMPLEMENTATION_TOOLS: AgentTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAMES.implementation,
      description: 'Save the implementation plan as markdown: "## Step N: <title>" sections in order, each with a description and a ```bash block of the exact commands to run. Secrets are referenced as environment variables, never written out.',
      parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
    },
  },
  // A correction that changes the stack (a component, a port, a domain, what is public) is an operation on
  // the project's stack model, and changes the architecture the steps deploy: it is saved there too, so
  // the two plans stay one stack and a later turn of any chat starts from the corrected model.
  ...ARCHITECT_TOOLS,
  ...STACK_OP_AGENT_TOOLS,
];

/**
 * The Implementation Planner: plans the confirmed architecture as the steps execution runs. It refuses to
 * start without an architecture plan (409), and a turn that ends without a saved plan is nudged once, then fails.
 */
export const implementationAgent: PlanningAgent = {
  name: 'implementation',
  usageAgent: 'implementationPlanningAgent',
  tools: IMPLEMENTATION_TOOLS,
  required: { tool: TOOL_NAMES.implementation, missing: 'no implementation plan was saved', exists: async ({ documents }, projectId) => Boolean((await documents.get(projectId, 'implementation'))?.content.trim()) },
  instructions: (context) => [
    'Role: implementation',
    'You plan the deployment of the confirmed architecture as ordered steps that the execution stage runs exactly: call save_implementation_plan with "## Step N: <title>" sections, each with a description and a ```bash block of exact commands. Reference secrets as environment variables. Reach the server over SSH: the first step writes the key to ssh-keys/deploy_key (out of the step history), an ssh config ssh-keys/config for the host alias da-server (HostName, Port, User, IdentityFile, UserKnownHostsFile ssh-keys/known_hosts, StrictHostKeyChecking yes), pins the host key on first contact (-o StrictHostKeyChecking=accept-new) and prints its fingerprint; later steps use `ssh -F ssh-keys/config da-server`. Find out what the server has (Docker Engine, `docker compose` v2 or `docker-compose` v1, the package manager) instead of assuming; never end a step early with exit 0; never compare two values that may both be empty; look for an existing server, firewall or IP by name before creating one; on an existing server never turn a firewall on or close ports, only open the published ones. A correction that changes the stack (add, remove or replace a component, a port, a domain, what is public) is made in the architecture too: call save_architecture_plan with the whole corrected architecture plan first, then save_implementation_plan with the steps that deploy it. What you cannot change (another orchestrator, several servers, a managed service), say plainly, with why, and leave the plans as they are.',
    PLAN_STACK_OP_INSTRUCTION,
    block('requirements_document', context.requirements),
    block(STACK_MODEL_TAG, context.stackModel),
    block('repository_analysis', context.analysis),
    block('architecture_plan', context.architecture),
    block('implementation_plan', context.implementation),
    // What the inspection of the target server found: the plan avoids its ports and says what is in the way.
    block('server_facts', context.serverFacts),
  ],
  async admit({ documents }, project) {
    if (!(await documents.get(project.projectId, 'architecture'))?.content.trim()) throw conflict(TURN_TEXTS.noArchitecture);
  },
  onStart: ({ verification }, project) => {
    verification.startTurn(project.projectId, 'implementation');
    verification.startTurn(project.projectId, 'architecture');
  },
  async runTool(workspace, projectId, name, args) {
    if (isStackOpTool(name)) return runStackOpTool(workspace, projectId, name, args, 'implementation');
    if (name === TOOL_NAMES.architecture) return saveArchitecturePlan(workspace, projectId, args);
    const { documents, verification } = workspace;
    if (name !== TOOL_NAMES.implementation) throw badRequest(`unknown tool ${name}`);
    if (typeof args.plan !== 'string' || !args.plan.trim()) throw badRequest('plan must be the whole implementation plan');
    await documents.put(projectId, 'implementation', args.plan);
    return verification.verifyAndKeep(projectId, 'implementation', args.plan);
  },
};
