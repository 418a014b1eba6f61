/** The names people know the agents by, for the ids the server meters usage under (one list, in src/shared). */
export { agentName } from '../../../shared/constants/agents';
