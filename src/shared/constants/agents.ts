/**
 * The names people know the agents by (the chat titles), for the ids usage is metered under (the
 * documents' stage agents, plus the repository analyser and the DevOps Helper).
 */
export const AGENT_NAMES: Readonly<Record<string, string>> = {
  requirementsAgent: 'Requirements Gatherer',
  repositoryAnalyzerAgent: 'Repository Analyzer',
  cloudArchitectAgent: 'Cloud Architecture Assistant',
  implementationPlanningAgent: 'Implementation Planner',
  executionAgent: 'Execution Agent',
  validationAgent: 'Validation Agent',
  devopsHelperAgent: 'DevOps Helper',
};

/** An agent's name; an id not known is shown as it is rather than hidden. */
export function agentName(id: string): string {
  return Object.hasOwn(AGENT_NAMES, id) ? AGENT_NAMES[id]! : id;
}

/** What a turn of any agent says when it cannot go on (agents/turnSession.ts, agents/turnLoop.ts). */
export const TURN_TEXTS = {
  /** The 409 of a second turn on a thread while one runs. */
  busy: 'A reply is already being generated in this conversation',
  /** The model sent nothing for the configured time (MODEL_TIMEOUT_SECONDS) in the middle of an answer. */
  stalled: (seconds: number): string =>
    `The model sent nothing for ${seconds} s, so this answer was stopped. Please send your message again.`,
  /** What the model is told, once, when it ended a turn without saving the document it exists to save. */
  nudge: (tool: string): string => `You ended without calling ${tool}. Call ${tool} now with the complete document; the person sees only what is saved.`,
  /** The 409 of the implementation planner asked before there is an architecture plan. */
  noArchitecture: 'There is no architecture plan to plan the implementation of yet: finish the architecture stage first.',
  /** What the person reads when the agent ended twice without saving its document. */
  notSaved: (missing: string): string => `The agent answered without saving: ${missing}. Please ask again.`,
} as const;
