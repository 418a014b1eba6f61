import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { AgentName, ModelProvider } from './models';
import { TOOL_NAMES } from './toolNames';
import { buildToolGraph, type AgentTool, type ToolGraph } from './turnLoop';
import { REQUIREMENTS_DOCUMENT, REQUIREMENTS_SECTION } from '../../shared/constants/planning';
import { SECRET_TYPES } from '../../shared/api/planning';

/**
 * The planning agents as LangGraph graphs: an `agent` node (the model with its tools bound, behind a
 * system prompt built fresh from the project's documents) and a `tools` node that saves what the agent
 * produced. State is the message list, checkpointed per thread, so a second message continues it.
 */

/** What a graph run needs to know about the caller; travels in `configurable`. */
export interface AgentRunContext {
  projectId: number;
  installationId: number;
}

/** The project's side of the agents: their context and where their tool calls land. */
export interface AgentWorkspace {
  /** The system prompt: `Role: <role>` on its first line, then instructions and tagged context blocks. */
  systemPrompt(agent: AgentName, ctx: AgentRunContext): Promise<string>;
  /** Executes one tool call; answers the text the model reads back. Throws HttpError for bad arguments. */
  runTool(agent: AgentName, ctx: AgentRunContext, name: string, args: Record<string, unknown>): Promise<string>;
}

const SECRET_ITEM = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$', description: 'Environment variable name' },
    description: { type: 'string' },
    required: { type: 'boolean' },
    secret_type: { type: 'string', enum: [...SECRET_TYPES], description: 'ssh_private_key for a private SSH key (the person\'s own server); password for other secret values; text for non-secret details' },
  },
  required: ['name', 'description', 'required', 'secret_type'],
};

/** The section titles as the tool describes them: `Cloud Specifications with Provider/…/Region lines`. */
const REQUIREMENT_SECTIONS = REQUIREMENTS_DOCUMENT.sections
  .map((section) => (section === REQUIREMENTS_SECTION.cloud ? `${section} with ${REQUIREMENTS_DOCUMENT.cloudSpecificationFields.join('/')} lines` : section))
  .join(', ');

/** Tool definitions in the OpenAI function format, which every LangChain chat model accepts. */
export const AGENT_TOOLS: Record<AgentName, AgentTool[]> = {
  requirements: [
    {
      type: 'function',
      function: {
        name: TOOL_NAMES.requirements,
        description:
          `Save the whole requirements document (sections ${REQUIREMENT_SECTIONS}, a "${REQUIREMENTS_DOCUMENT.generatedOnPrefix}: <ISO date>" line, then "${REQUIREMENTS_DOCUMENT.stopLine}"), the secrets the plan needs (never their values) and whether the requirements are complete.`,
        parameters: {
          type: 'object',
          properties: {
            document: { type: 'string' },
            secrets: { type: 'array', items: SECRET_ITEM },
            ready_to_continue: { type: 'boolean' },
            analysis_answers: {
              type: 'object',
              description: "The person's answers to the repository analysis's questions, keyed by each question exactly as the analysis asks it.",
              additionalProperties: { type: 'string' },
            },
          },
          required: ['document', 'secrets', 'ready_to_continue'],
        },
      },
    },
  ],
  architect: [
    {
      type: 'function',
      function: {
        name: TOOL_NAMES.architecture,
        description: 'Save the architecture plan as markdown: overview, a ```mermaid diagram, services, networking and security, the complete docker-compose.yml (images pinned to tags, healthchecks) and every file it mounts.',
        parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
      },
    },
  ],
  implementation: [
    {
      type: 'function',
      function: {
        name: TOOL_NAMES.implementation,
        description: 'Save the implementation plan as markdown: "## Step N: <title>" sections in order, each with a description and a ```bash block of the exact commands to run. Secrets are referenced as environment variables, never written out.',
        parameters: { type: 'object', properties: { plan: { type: 'string' } }, required: ['plan'] },
      },
    },
  ],
  analyzer: [
    {
      type: 'function',
      function: {
        name: TOOL_NAMES.analysis,
        description: 'Save the repository analysis.',
        parameters: {
          type: 'object',
          properties: {
            analysis: { type: 'string', description: 'The analysis as markdown' },
            user_questions: {
              type: 'object',
              properties: { reason: { type: 'string' }, questions: { type: 'object', additionalProperties: { type: 'string' } } },
              required: ['reason', 'questions'],
            },
            deployment_plan: {
              type: 'object',
              properties: {
                prerequisites: { type: 'array', items: { type: 'string' } },
                deployment_steps: { type: 'array', items: { type: 'string' } },
                post_deployment: { type: 'array', items: { type: 'string' } },
                scaling_considerations: { type: 'array', items: { type: 'string' } },
              },
              required: ['prerequisites', 'deployment_steps', 'post_deployment', 'scaling_considerations'],
            },
          },
          required: ['analysis', 'user_questions', 'deployment_plan'],
        },
      },
    },
  ],
};

export const runContextOf = (config: RunnableConfig): AgentRunContext => {
  const c = config.configurable as { project_id?: number; installation_id?: number } | undefined;
  if (!c?.project_id || !c.installation_id) throw new Error('agent run without project_id/installation_id');
  return { projectId: c.project_id, installationId: c.installation_id };
};

/** Compiles one agent's graph over the given checkpointer (the one turn loop's graph, turnLoop.ts). */
export function buildAgentGraph(agent: AgentName, deps: { models: ModelProvider; checkpointer: BaseCheckpointSaver; workspace: AgentWorkspace }): ToolGraph {
  const { models, checkpointer, workspace } = deps;
  return buildToolGraph({
    checkpointer,
    model: () => models.forAgent(agent).model,
    tools: AGENT_TOOLS[agent],
    systemPrompt: (config) => workspace.systemPrompt(agent, runContextOf(config)),
    runTool: (call, config) => workspace.runTool(agent, runContextOf(config), call.name, call.args),
  });
}

export type AgentGraph = ToolGraph;
