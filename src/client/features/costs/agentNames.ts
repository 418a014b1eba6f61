/**
 * The names people know the agents by (the chat titles), for the ids the server meters usage under.
 * An id not here is shown as it is rather than hidden.
 */
const AGENT_NAMES: Record<string, string> = {
  requirementsAgent: 'Requirements Gatherer',
  repositoryAnalyzerAgent: 'Repository Analyzer',
  cloudArchitectAgent: 'Cloud Architecture Assistant',
  implementationPlanningAgent: 'Implementation Planner',
  executionAgent: 'Execution Agent',
  validationAgent: 'Validation Agent',
  devopsHelperAgent: 'DevOps Helper',
};

export function agentName(id: string): string {
  return Object.hasOwn(AGENT_NAMES, id) ? AGENT_NAMES[id]! : id;
}
