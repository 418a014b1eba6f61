import type { ChatEndpoint } from '../../common/chat/chatSlice';

/** Stop in any planning chat calls the requirements gatherer's kill, which stops every generation of the project. */
const KILL_PATH = '/planning/requirements-gatherer/kill';

/** The planning chats and where each sends (part 1 section 7, "Planning streams"). */
export const PLANNING_CHATS = {
  requirements: { path: '/planning/requirements-gatherer', killPath: KILL_PATH },
  architect: { path: '/planning/cloud-architect', killPath: KILL_PATH },
  implementation: { path: '/planning/implementation-planner', killPath: KILL_PATH },
} as const satisfies Record<string, ChatEndpoint>;

export type PlanningChat = keyof typeof PLANNING_CHATS;

/** The analyser streams into the requirements chat. */
export const ANALYZER_ENDPOINT: ChatEndpoint = { path: '/planning/analyzer', killPath: KILL_PATH };
