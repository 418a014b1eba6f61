/**
 * Types the offline planner's modules share. They live apart from planner.ts and documents.ts so the
 * stage planners and step writers those modules import do not import them back (no import cycle).
 */

/** One message of the conversation the planner answers. */
export interface Turn {
  role: 'user' | 'assistant' | 'tool';
  content: string;
}

export interface PlannerToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface PlannerReply {
  text: string;
  toolCalls: PlannerToolCall[];
}

/** One step of an implementation plan: its title, what it does, and its commands. */
export interface PlanStep {
  title: string;
  description: string;
  commands: string[];
}
