import type { AgentName } from '../../../agents/models';
import type { AgentTool } from '../../../agents/turnLoop';
import type { TurnProject } from '../../../agents/turnSession';
import type { UserSecret } from '../../../../shared/api/planning';
import type { UserSecrets } from '../../userSecrets/userSecrets';
import type { PlanningDocuments } from '../planningDocuments';
import type { PlanVerification } from '../planVerification';
import type { StackEditing } from '../stackEditing';
import { STACK_DIRECTORY_TAG } from '../../../agents/offline/stackPlace';

/** What a planning agent's prompt is made from: the project's documents and secrets as they stand. */
export interface PlanningContext {
  projectName?: string;
  /** Where the project's stack lives on its server (stackPlace.ts): every plan's steps use it. */
  stackDirectory?: string;
  requirements?: string;
  analysis?: string;
  architecture?: string;
  implementation?: string;
  /** The stack operations the person made in the Collected Requirements panel, as JSON. */
  stackEdits?: string;
  /** The stack model the requirements were rendered from, as JSON; absent when a model wrote them whole (stale). */
  stackModel?: string;
  /** What the inspection of the target server found (the stack model's serverFacts), as JSON. */
  serverFacts?: string;
  secrets: UserSecret[];
}

/** Where a planning agent's tool calls land. */
export interface PlanningWorkspace {
  documents: PlanningDocuments;
  secrets: UserSecrets;
  verification: PlanVerification;
  stackEditing: StackEditing;
  /** Saves the requirements document with the secrets it declares. */
  saveRequirements(projectId: number, args: { document: string; secrets?: unknown; ready: boolean }): Promise<void>;
}

/** One planning agent: its prompt and tools, and what its turns require. Each lives in a file of its own. */
export interface PlanningAgent {
  name: AgentName;
  /** The id its token usage is recorded under (ARCHITECTURE.md stage agents). */
  usageAgent: string;
  tools: AgentTool[];
  /** Its role line, instructions and the context blocks it reads (the common ones follow). */
  instructions(context: PlanningContext): string[];
  runTool(workspace: PlanningWorkspace, projectId: number, name: string, args: Record<string, unknown>): Promise<string>;
  /** The document its turns exist to save while the project has none (one nudge, then an error). */
  required?: { tool: string; missing: string; exists(workspace: PlanningWorkspace, projectId: number): Promise<boolean> };
  /** Refuses a turn (an HttpError) before it starts. */
  admit?(workspace: PlanningWorkspace, project: TurnProject): Promise<void>;
  /** Told when a turn starts (a plan's revisions start again). */
  onStart?(workspace: PlanningWorkspace, project: TurnProject): void;
}

/** A tagged context block of a system prompt, or nothing when there is nothing to show. */
export const block = (tag: string, body: string | undefined): string => (body ? `<${tag}>\n${body}\n</${tag}>` : '');

const secretStatusLine = (s: UserSecret): string => `${s.name} (${s.required ? 'required' : 'optional'}): ${s.provided ? 'provided' : 'missing'}`;

/** A planning agent's system prompt: `Role: <role>` first, its instructions, then what every planner reads. */
export function planningPrompt(agent: PlanningAgent, context: PlanningContext): string {
  return [
    ...agent.instructions(context),
    block('project_name', context.projectName),
    block(STACK_DIRECTORY_TAG, context.stackDirectory),
    block('user_secrets', context.secrets.map(secretStatusLine).join('\n')),
    'Secret values are never shown to you and must never be asked for in the chat: declare them as secrets; the person enters them in the User Secrets form.',
  ]
    .filter(Boolean)
    .join('\n\n');
}
