import { SystemMessage, ToolMessage, type AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import type { AgentName, ModelProvider } from './models';
import { messageText } from './offline/offlineChatModel';
import { TOOL_NAMES } from './offline/planner';
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

/** Tool definitions in the OpenAI function format, which every LangChain chat model accepts. */
export const AGENT_TOOLS: Record<AgentName, Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }>> = {
  requirements: [
    {
      type: 'function',
      function: {
        name: TOOL_NAMES.requirements,
        description:
          'Save the whole requirements document (sections Summary, Required Stack, Configuration Requirements, Service Integrations, Scale & Resource Requirements, Cloud Specifications with Provider/Compute/Storage/Networking/Region lines, Required User Details, a "Generated on: <ISO date>" line, then "User Secrets Configuration:"), the secrets the plan needs (never their values) and whether the requirements are complete.',
        parameters: {
          type: 'object',
          properties: {
            document: { type: 'string' },
            secrets: { type: 'array', items: SECRET_ITEM },
            ready_to_continue: { type: 'boolean' },
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

/** Compiles one agent's graph over the given checkpointer. */
export function buildAgentGraph(agent: AgentName, deps: { models: ModelProvider; checkpointer: BaseCheckpointSaver; workspace: AgentWorkspace }) {
  const { models, checkpointer, workspace } = deps;

  async function callModel(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const ctx = runContextOf(config);
    const system = await workspace.systemPrompt(agent, ctx);
    const model = models.forAgent(agent).model.bindTools!(AGENT_TOOLS[agent]);
    const response = await model.invoke([new SystemMessage(system), ...state.messages], config);
    return { messages: [response] };
  }

  async function runTools(state: typeof MessagesAnnotation.State, config: RunnableConfig): Promise<{ messages: BaseMessage[] }> {
    const ctx = runContextOf(config);
    const last = state.messages[state.messages.length - 1] as AIMessage;
    const out: BaseMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      let content: string;
      try {
        content = await workspace.runTool(agent, ctx, call.name, call.args);
      } catch (err) {
        content = `Error: ${(err as Error).message}`;
      }
      out.push(new ToolMessage({ content, tool_call_id: call.id ?? call.name, name: call.name }));
    }
    return { messages: out };
  }

  const afterAgent = (state: typeof MessagesAnnotation.State): 'tools' | typeof END => {
    const last = state.messages[state.messages.length - 1] as AIMessage;
    return last.tool_calls?.length ? 'tools' : END;
  };

  /** A model that already spoke alongside its tool call is done; one that only called a tool gets to reply. */
  const afterTools = (state: typeof MessagesAnnotation.State): 'agent' | typeof END => {
    const ai = [...state.messages].reverse().find((m) => m.getType() === 'ai');
    return ai && messageText(ai).trim() ? END : 'agent';
  };

  return new StateGraph(MessagesAnnotation)
    .addNode('agent', callModel)
    .addNode('tools', runTools)
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', afterAgent, ['tools', END])
    .addConditionalEdges('tools', afterTools, ['agent', END])
    .compile({ checkpointer });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
