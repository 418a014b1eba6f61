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
