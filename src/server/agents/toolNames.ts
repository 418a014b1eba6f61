/**
 * The agents' tool names and fixed prompts. They belong to the agents, whichever model answers: the
 * services and the graphs read them here, and the offline planner (one model behind the agents) too.
 */

/** The planning agents' tools. */
export const TOOL_NAMES = {
  requirements: 'update_requirements',
  architecture: 'save_architecture_plan',
  implementation: 'save_implementation_plan',
  analysis: 'save_analysis',
} as const;

/** What the requirements agent is sent when the person's message is blank. */
export const CONTINUE_PROMPT = 'Please start (or continue) gathering the requirements.';

export const EXECUTION_TOOLS = { updateStep: 'update_step', addStep: 'add_step' } as const;

export const VALIDATION_TOOLS = { savePlan: 'save_validation_plan', saveDocumentation: 'save_documentation' } as const;

export const DEVOPS_HELPER_TOOLS = { runCommand: 'run_command' } as const;
